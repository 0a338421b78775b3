# measure/: events, perf_event_open backend, runner, statistics, results.
#
# The simulator backend (measure/sim/) is referenced weakly from
# measure/backend.c (sim_backend_new, sim_backend_options) so lace links
# before it exists; a weak reference does not pull an archive member, so
# once the simulator defines them we force them in with -u.
ifneq ($(shell grep -ls 'sim_backend_new' measure/sim/*.c 2>/dev/null),)
LDFLAGS += -Wl,-u,sim_backend_new
endif
