#!/bin/bash
# lace study --kernel --plan, run by a one-node Slurm on localhost as
# doc/scale.md says (its "recipe: slurm" block, as written: one job array
# per stage, each after the one before), then --merge: the same numbers as
# the study run here (issue 26 item 2).  The test starts munged, slurmctld
# and slurmd with a minimal slurm.conf of its own (NodeName=localhost
# CPUs=2, select/cons_tres, proctrack/linuxproc, a fresh munge key, ports
# of its own) and stops them when it ends.
# Skipped, saying why, without the kernel builds (make check-kernel) or
# without root (slurmd runs jobs as their user).
# timeout: 1800
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/kstudy_common.sh"
for p in munged slurmctld slurmd sbatch; do
  command -v $p >/dev/null || PATH=$PATH:/usr/sbin command -v $p >/dev/null ||
    fail "$p not installed (make setup-test installs slurm-wlm and munge)"
done
PATH=$PATH:/usr/sbin
[ "$(id -u)" -eq 0 ] || skip "not root: a one-node Slurm here needs root"
cd "$T" || exit 1
S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 755 "$T" "$S"
chmod 700 "$S/munge"
head -c 1024 /dev/urandom > "$S/munge/munge.key"
chmod 400 "$S/munge/munge.key"
port=$((20000 + $$ % 20000))
cat > "$S/slurm.conf" <<EOC
ClusterName=lacetest
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.sock
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=lace Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOC
export SLURM_CONF=$S/slurm.conf
stop_slurm() {
  local f pid i
  for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null
    # gone before run.sh removes the folder they write in
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}
# the daemons leave the test's process group: stop them on any exit,
# the watchdog's SIGTERM included
trap stop_slurm EXIT
trap 'exit 143' TERM INT
# --force: the test's folders sit under run.sh's private (0700) one,
# which munged's socket-permission check would refuse
munged --force --key-file="$S/munge/munge.key" --socket="$S/munge/munge.sock" \
  --pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" \
  --seed-file="$S/munge/munged.seed" || fail "munged did not start: $(tail -3 "$S/munge/munged.log")"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start: $(tail -3 "$S/slurmctld.log")"
slurmd -f "$SLURM_CONF" -N localhost || fail "slurmd did not start: $(tail -3 "$S/slurmd.log")"
for i in $(seq 30); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %t | grep -q idle || fail "the Slurm node is not idle: $(sinfo 2>&1; tail -5 "$S/slurmctld.log")"

kstudy_local local -j 2
"$LACE" study --kernel --quick --no-build --kernels "$K" --shuffle "$NSHUF" --plan plan > plan.txt ||
  fail "lace study --plan"
recipe slurm > recipe.sh
[ -s recipe.sh ] || fail "no 'recipe: slurm' block in doc/scale.md"
PLAN=$T/plan LACE=$LACE bash -e recipe.sh > slurm.out 2> slurm.err ||
  fail "the Slurm recipe: $(tail -5 slurm.err; tail -5 "$S/slurmctld.log")"
n=$(ls plan/out/*.rc | wc -l)
[ "$n" -eq "$(cat plan/stage-*.txt | wc -l)" ] || fail "$n outputs for $(cat plan/stage-*.txt | wc -l) jobs"
"$LACE" study --kernel --merge plan > merge.txt 2> merge.err || [ $? -eq 1 ] || fail "--merge: $(cat merge.err)"
kstudy_same local/results.json plan/results.json
stages=$(ls plan/stage-*.txt | wc -l)
echo "$n jobs in $stages Slurm job arrays (one after another): the local run's numbers"
