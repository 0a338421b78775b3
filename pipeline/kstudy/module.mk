# pipeline/kstudy: the kernel study, `lace study --kernel` -- its steps and
# readings (kstudy.c), the jobs and plan folder every build, boot and read
# runs from (kstudy_jobs.c; doc/scale.md), the code facts of reading 1
# (kstudy_code.c), the readers of lace stat's JSON (kstudy_stat.c), the
# guest downloads (kstudy_guests.c) and the report (kstudy_report.c).  Compiled into libpipeline_kstudy.a by the
# generic module rule; it uses pipeline/'s shared parts (selfexec, the
# report writer, the SVG plots, progress).
