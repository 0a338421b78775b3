# measure/: the perf-stat engine -- events, the backends' interface and the
# perf_event_open backend, the runner, the session, the stat and ab loops,
# results.  Compiled by the generic module rule.  Its rooms have their own
# module.mk: measure/stats (statistics and rendering), measure/model (the
# freestanding models), measure/vg (the Valgrind host, backend_vg.c and the
# tool) and measure/qemu (the QEMU host).
