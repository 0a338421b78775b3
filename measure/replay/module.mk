# measure/replay: recordings (record_file.c: the zstd-compressed file a
# host's raw record streams are packed into, doc/record-format.md) and
# their replay through the models once per layout (replay.c), compiled
# into libmeasure_replay.a by the generic module rule.  It runs no program
# and reads no ELF: cli/cmd_replay.c hands it the symbol tables that
# layout/symkeys.c reads (scripts/check-layering.sh).
