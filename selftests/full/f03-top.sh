#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnv-timeout: 240
#
# fairnvme-top --once --json against fio: two tenants (weights 100 and
# 300) read the emulated NVMe at depth 16 for 24 s, nothing tuned;
# fairnvme-top samples them for 10 s in the middle of that run. Asserted:
# its JSON lists both cgroups by path with their weights, and each one's
# IOPS is within 10 % of what fio reported for the whole run (the tenants
# are steady there: the device serves 2000 IOPS and the shares hold).
. /tests/lib.sh

TOOLS=${FNV_TOOLS:-/tools}
TOP=$TOOLS/fairnvme-top
W=$FNV_WORK/f03

tap_plan 6
command -v python3 >/dev/null 2>&1 || tap_skip_rest "no python3 in this guest"
[ -x "$TOP" ] || tap_fail_rest "no $TOP"
dev= # set by fnv_nvme_setup
fnv_nvme_setup "$W"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
pair_cgroups
pair_start 24 --ramp_time=2
sleep 7
"$TOP" --once --json -i 10 "$dev" >"$W/top.json" 2>"$W/top.err"
rc=$?
# the text view, for the documentation's sample
"$TOP" --once -i 2 "$dev" >"$W/top.text" 2>&1
tenants_wait
bad=$?
check "fio ran for both tenants" test "$bad" = 0
check "fairnvme-top --once --json exited 0 ($(head -c 200 "$W/top.err"))" test "$rc" = 0
# path weight iops, one line per tenant of the device, from the JSON
python3 - "$W/top.json" "$dev" >"$W/top.txt" 2>"$W/top.py.err" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d["devices"]:
    if dev["device"] != sys.argv[2]:
        continue
    for t in dev["tenants"]:
        print(t["cgroup"], t["weight"], t["iops"], t["state"], t["class"])
PY
diag "fairnvme-top: $(tr '\n' ';' <"$W/top.txt") $(head -c 200 "$W/top.py.err")"
while IFS= read -r l; do diag "  $l"; done <"$W/top.text"
check "the JSON lists /A at weight 100 and /B at weight 300" \
	sh -c "grep -q '^/A 100 ' '$W/top.txt' && grep -q '^/B 300 ' '$W/top.txt'"
ia=$(awk '$1 == "/A" { print $3 }' "$W/top.txt")
ib=$(awk '$1 == "/B" { print $3 }' "$W/top.txt")
assert_near "A's IOPS in fairnvme-top against fio's $(tenant_iops A)" "${ia:-0}" "$(tenant_iops A)" 10
assert_near "B's IOPS in fairnvme-top against fio's $(tenant_iops B)" "${ib:-0}" "$(tenant_iops B)" 10
assert_near "B's share of the IOPS in fairnvme-top (weights 100:300)" \
	"$(awk -v a="${ia:-0}" -v b="${ib:-0}" 'BEGIN { if (a + b > 0) printf "%.3f", b / (a + b); else print 0 }')" 0.75 10
cg_destroy A
cg_destroy B
tap_done
