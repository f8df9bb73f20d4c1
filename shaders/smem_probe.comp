#version 450
// The shared-memory co-residence probe of benches/gpu_smem_probe.rs (a benchmark tool, not
// shipped). Each workgroup holds SHARED_WORDS words of shared memory, records the
// multiprocessor it runs on and the device clock when it starts and ends, and spins in between
// for a fixed number of clock ticks, so that the host can count how many workgroups of that
// size one multiprocessor holds at once. Needs VK_NV_shader_sm_builtins (shaderSMBuiltins) and
// VK_KHR_shader_clock (shaderDeviceClock).
#extension GL_NV_shader_sm_builtins : require
#extension GL_EXT_shader_realtime_clock : require

// Small workgroups, so that the limit of workgroups (or threads) per multiprocessor binds only
// where shared memory does not.
layout(local_size_x = 64) in;

// The words of shared memory each workgroup holds (at least 1).
layout(constant_id = 0) const uint SHARED_WORDS = 4096;

// Per workgroup: (SM id, SM count, start low, start high), (end low, end high, checksum, 0).
layout(std430, binding = 0) writeonly buffer Records { uvec4 records[]; };

layout(push_constant) uniform Push {
    // Ticks of the device clock each workgroup spins (nanoseconds on NVIDIA).
    uint spin_ticks;
    uint seed;
};

shared uint tile[SHARED_WORDS];

void main() {
    uvec2 start = clockRealtime2x32EXT();
    uint id = gl_LocalInvocationIndex;
    // Fill the whole array and read it at data-dependent places while spinning, so that no
    // compiler can shrink the allocation.
    for (uint i = id; i < SHARED_WORDS; i += gl_WorkGroupSize.x) {
        tile[i] = i ^ seed;
    }
    barrier();
    uint acc = id + seed;
    uvec2 now = start;
    while (now.x - start.x < spin_ticks) {
        acc = acc * 1664525u + tile[acc % SHARED_WORDS];
        now = clockRealtime2x32EXT();
    }
    barrier();
    if (id == 0) {
        uvec2 end = clockRealtime2x32EXT();
        uint wg = gl_WorkGroupID.x;
        records[2 * wg] = uvec4(gl_SMIDNV, gl_SMCountNV, start);
        records[2 * wg + 1] = uvec4(end, acc, 0u);
    }
}
