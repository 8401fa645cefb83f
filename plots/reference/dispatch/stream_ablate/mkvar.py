# measurement-only variants of the stream kernel: the first launch of a process (the check) runs
# the real kernel; later launches (timing) run the ablation, flagged in bit 4 of nbuf
import sys
src=open('07_softmax/softmax_tuned.cu').read()
def rep(s,a,b,count=1):
    assert s.count(a)==count,(a,s.count(a)); return s.replace(a,b)
base=rep(src,"int n_chunks = sp.chunks, n_buf = sp.nbuf;","static int calls; int n_chunks = sp.chunks, n_buf = sp.nbuf | (calls++ > 1 ? 16 : 0);")
base=rep(base,"""    constexpr int P = PACK_BYTES / (int)sizeof(T);
    extern __shared__ uint4 smem_slots[];""","""    constexpr int P = PACK_BYTES / (int)sizeof(T);
    const bool AB = (nbuf & 16) != 0; nbuf &= 15;
    extern __shared__ uint4 smem_slots[];""")
SUMEXP="for (int i = 0; i < P; ++i) s += exp_of(to_float(pk.elem[i]) - m);"
WEXP="exp_of(v - row.m) * scale);"
L1="""        float m = -INFINITY;
        for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) {"""
L2="""        if (m != -INFINITY) {
            for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) {"""
CMB="        max_sum row = block_combine({m, s});"
W="""        T *y = d_out + r * cols - c.a + c.first * P;
        for (unsigned l = threadIdx.x; l < c.count; l += blockDim.x) {"""
EXF="        if (FLAGS) { // the row's K states, through global memory"
EXS="        } else if (swap) { // the cluster's K states, by message into each CTA's shared memory"
CNT="        if (FLAGS && threadIdx.x == 0) {\n            if (EX == EX_GATHER)"
def nopass(t):
    t=rep(t,L1,L1.replace("l < c.count","l < (AB ? 0u : c.count)"))
    t=rep(t,L2,L2.replace("l < c.count","l < (AB ? 0u : c.count)"))
    return rep(t,CMB,"        if (AB) { m = 1.0f; s = threadIdx.x == 0 ? 1.0f : 0.0f; }\n"+CMB)
def noexch(t):
    t=rep(t,EXF,"        if (AB) {\n        } else if (FLAGS) {")
    t=rep(t,EXS,"        } else if (swap) {")
    return rep(t,CNT,"        if (!AB && FLAGS && threadIdx.x == 0) {\n            if (EX == EX_GATHER)")
V={}
V['nosumexp']=rep(base,SUMEXP,"for (int i = 0; i < P; ++i) s += AB ? to_float(pk.elem[i]) - m : exp_of(to_float(pk.elem[i]) - m);")
V['nowexp']=rep(base,WEXP,"(AB ? (v - row.m) * scale : exp_of(v - row.m) * scale));")
V['nopass']=nopass(base)
V['nowrite']=rep(base,W,W.replace("l < c.count","l < (AB ? 0u : c.count)"))
V['noexch']=noexch(base)
V['bare']=rep(noexch(nopass(base)),WEXP,"(AB ? (v - row.m) * scale : exp_of(v - row.m) * scale));")
for k,v in V.items(): open(f'.devrun/v/st_{k}.cu','w').write(v)
print(list(V))
