# measure/: events, perf_event_open and simulator backends, runner,
# statistics, results.  Compiled by the generic module rule; the simulator
# backend (measure/vg/backend_vg.c) runs the Valgrind tool built by measure/sim/module.mk.
