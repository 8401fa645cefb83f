# SPDX-License-Identifier: MIT
# evidence_lib.sh: helpers shared by profile.sh, sanitize.sh and sass.sh (sourced, POSIX sh).

# profile.csv's header (DESIGN.md "Evidence") and the metrics ncu collects for it
CSV_HEADER=gpu,stage,variant,op,dtype,rows,cols,duration_us,dram_pct_of_peak,\
achieved_occupancy_pct,registers_per_thread,thread_inst_per_inst,\
shared_bank_conflicts_per_request,global_ld_sectors_per_request,bytes_in_flight_per_sm
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,\
launch__registers_per_thread,smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum

# find_tool NAME: the path of a CUDA tool (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, their
# compute-sanitizer/, the newest /opt/nvidia/nsight-compute/*/ncu), else return 1.
find_tool() {
    _t=$(command -v "$1" 2>/dev/null) && { echo "$_t"; return 0; }
    _h=${CUDA_HOME:-/usr/local/cuda}
    for _d in "$_h/bin" /usr/local/cuda/bin "$_h/compute-sanitizer" \
              /usr/local/cuda/compute-sanitizer; do
        [ -x "$_d/$1" ] && { echo "$_d/$1"; return 0; }
    done
    if [ "$1" = ncu ]; then
        # shellcheck disable=SC2012
        for _t in $(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -r); do
            [ -x "$_t" ] && { echo "$_t"; return 0; }
        done
    fi
    return 1
}

# have_gpu: HAVE_GPU from make (yes or empty) when it is set, else whether nvidia-smi sees one.
have_gpu() {
    if [ "${HAVE_GPU+set}" = set ]; then [ "$HAVE_GPU" = yes ]; return; fi
    nvidia-smi -L 2>/dev/null | grep -q GPU
}

# pick_arch CUOBJDUMP BINARY: the SASS to read from BINARY: $ARCH, else the installed GPU's,
# else sm_90, else the newest it holds; nothing when it holds no machine code.
pick_arch() {
    _have=$("$1" -lelf "$2" 2>/dev/null |
            sed -n 's/.*\.\(sm_[0-9][0-9]*[a-z]*\)\.cubin$/\1/p' | sort -u)
    [ -n "$_have" ] || return 0
    _gpu=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 |
           tr -d ' .' | sed -n 's/^\([0-9][0-9]*\)$/sm_\1/p')
    for _a in "${ARCH:-}" "$_gpu" sm_90; do
        [ -n "$_a" ] && echo "$_have" | grep -qx "$_a" && { echo "$_a"; return 0; }
    done
    echo "$_have" | sort -t_ -k2 -n | tail -n1
}

# demangle: mangled C++ names to readable ones, a line each (cu++filt, c++filt, else as is).
demangle() {
    if _f=$(find_tool cu++filt); then "$_f"
    elif command -v c++filt >/dev/null 2>&1; then c++filt
    else cat
    fi
}
