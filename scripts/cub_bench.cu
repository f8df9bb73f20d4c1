// CUB's radix sort on keys already on the GPU: the like-for-like peer of
// `cargo bench --bench gpu -- radix` (BENCHMARKS.md, "GPU radix sort").
//
// Build and run (scripts/cub_bench.sh does both, for the GPU it runs on):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_bench scripts/cub_bench.cu
//   ./cub_bench [--keys u32,u64,pairs32,pairs64,i32,i64,f32,f64] [--shape NAME,..]
//               [--reps N] [--warm-copies N] LOG2..
//
// `cub::DeviceRadixSort::SortKeys` and `SortPairs` with `cub::DoubleBuffer` (CUB's fastest
// entry: it may leave the result in either buffer), temporary storage allocated once per
// size outside the timing. The keys are benches/gpu.rs's: its xorshift words with its seed
// (0x12345678 + log2 n), a 64-bit key being two consecutive words, low first; the values
// 0..n. `pairs32` is u32 keys with u32 values, `pairs64` u64 keys with u32 values; i32, i64,
// f32 and f64 sort the same bits read as those types (the benchmark's `--map signed|float`).
//
// Timing mirrors the benchmark: before each sort the input is restored (untimed), then copy
// kernels over two 64 MiB buffers keep the clocks up and push the keys out of L2, then the
// sort alone between two CUDA events; best and median of N (default 10) after one warm-up.
// Each result is checked on the GPU (order, stability and the values' permutation for
// pairs, a checksum of the keys otherwise). A copy kernel over n words gives the bandwidth
// yardstick, as in the benchmark.
//
// Shapes (applied to each key's bits): uniform (default); one-top-digit, equal, two and
// depths as in benches/gpu.rs's `--shape` (there for 32-bit keys; here the same rule at
// either width); and the inputs that hurt MSD radix sorts: distinct16 (16 values), sorted,
// reversed (of the uniform keys), zipf1 and zipf1.5 (Zipf over 2^20 values, s = 1, 1.5).
#include <cub/device/device_radix_sort.cuh>
#include <cub/version.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

enum Shape { UNIFORM, ONE_TOP_DIGIT, EQUAL, TWO, DEPTHS, DISTINCT16, SORTED, REVERSED, ZIPF };

struct ShapeSpec {
    const char* name;
    Shape shape;
    double zipf_s;
};

static const ShapeSpec SHAPES[] = {
    {"uniform", UNIFORM, 0},   {"one-top-digit", ONE_TOP_DIGIT, 0}, {"equal", EQUAL, 0},
    {"two", TWO, 0},           {"depths", DEPTHS, 0},               {"distinct16", DISTINCT16, 0},
    {"sorted", SORTED, 0},     {"reversed", REVERSED, 0},           {"zipf1", ZIPF, 1.0},
    {"zipf1.5", ZIPF, 1.5},
};

// Distinct values of the Zipf shapes.
static const uint32_t ZIPF_RANKS = 1u << 20;

// Words of each warm-up buffer: 64 MiB, larger than the L2 of any GPU this runs on.
static const size_t WARM_WORDS = size_t(16) << 20;

static const int THREADS = 256;

static int grid_for(size_t n) {
    size_t blocks = (n + THREADS - 1) / THREADS;
    return int(std::min<size_t>(std::max<size_t>(blocks, 1), 4096));
}

// ---- keys as ordered bits -------------------------------------------------------------------

// The unsigned integer whose order is the key's, as CUB sorts it (negative floats reversed,
// -0.0 equal to +0.0).
__device__ inline uint32_t ordered(uint32_t k) { return k; }
__device__ inline uint64_t ordered(uint64_t k) { return k; }
__device__ inline uint32_t ordered(int32_t k) { return uint32_t(k) ^ 0x80000000u; }
__device__ inline uint64_t ordered(int64_t k) { return uint64_t(k) ^ (uint64_t(1) << 63); }
__device__ inline uint32_t ordered(float k) {
    uint32_t u = __float_as_uint(k);
    if (u == 0x80000000u) u = 0;
    return u ^ ((u >> 31) ? 0xFFFFFFFFu : 0x80000000u);
}
__device__ inline uint64_t ordered(double k) {
    uint64_t u = uint64_t(__double_as_longlong(k));
    const uint64_t sign = uint64_t(1) << 63;
    if (u == sign) u = 0;
    return u ^ ((u >> 63) ? ~uint64_t(0) : sign);
}

__host__ __device__ inline uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// ---- kernels --------------------------------------------------------------------------------

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

__global__ void iota_kernel(uint32_t* v, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        v[i] = uint32_t(i);
}

template <typename U>
__global__ void reverse_kernel(U* k, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n / 2;
         i += size_t(gridDim.x) * blockDim.x) {
        U t = k[i];
        k[i] = k[n - 1 - i];
        k[n - 1 - i] = t;
    }
}

// The benchmark's narrow float range, rounded as Rust rounds it (no fused multiply-add).
__device__ inline uint32_t depth_bits(uint32_t w) {
    return __float_as_uint(__fadd_rn(100.0f, __fmul_rn(float(w >> 12), 1e-5f)));
}
__device__ inline uint64_t depth_bits(uint64_t w) {
    return uint64_t(__double_as_longlong(__dadd_rn(100.0, __dmul_rn(double(w >> 44), 1e-5))));
}

template <typename U>
__global__ void shape_kernel(U* k, size_t n, Shape shape, const double* cdf) {
    const int bits = 8 * int(sizeof(U));
    const U top = U(0xFF) << (bits - 8);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        U w = k[i];
        switch (shape) {
        case ONE_TOP_DIGIT: w = (w & ~top) | (U(0x5A) << (bits - 8)); break;
        case EQUAL: w = (U(1) << (bits - 1)) | 1; break;
        case TWO: w = (w & 1) == 0 ? U(7) : U(0xC0) << (bits - 8); break;
        case DEPTHS: w = depth_bits(w); break;
        case DISTINCT16: w = U(splitmix(w & 15)); break;
        case ZIPF: {
            // The rank whose cumulative share first reaches a uniform draw from the top bits.
            double p = (double(uint32_t(w >> (bits - 32))) + 0.5) * (1.0 / 4294967296.0);
            uint32_t lo = 0, hi = ZIPF_RANKS - 1;
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (cdf[mid] < p) lo = mid + 1; else hi = mid;
            }
            w = U(splitmix(lo));
            break;
        }
        default: break;
        }
        k[i] = w;
    }
}

__device__ inline unsigned long long warp_sum(unsigned long long x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xFFFFFFFFu, x, o);
    return x;
}
__device__ inline unsigned long long warp_xor(unsigned long long x) {
    for (int o = 16; o > 0; o >>= 1) x ^= __shfl_down_sync(0xFFFFFFFFu, x, o);
    return x;
}

// stats: [0] keys out of order, unstable pairs or wrong values; [1] sum and [2] xor of the
// keys' ordered bits (to compare with the input's). `vals` (pairs): the sorted values, each
// the index of its key in `in`; `seen` a zeroed bitmap of n bits.
template <typename K>
__global__ void check_kernel(const K* out, const uint32_t* vals, const K* in, size_t n,
                             unsigned long long* stats, uint32_t* seen) {
    unsigned long long bad = 0, sum = 0, x = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        auto o = ordered(out[i]);
        if (i + 1 < n) {
            auto next = ordered(out[i + 1]);
            if (o > next) bad++;
            else if (vals && o == next && vals[i] >= vals[i + 1]) bad++;
        }
        if (vals) {
            uint32_t v = vals[i];
            if (v >= n) {
                bad++;
            } else {
                if (ordered(in[v]) != o) bad++;
                uint32_t bit = 1u << (v & 31);
                if (atomicOr(&seen[v >> 5], bit) & bit) bad++;
            }
        }
        sum += (unsigned long long)o;
        x ^= (unsigned long long)o;
    }
    bad = warp_sum(bad);
    sum = warp_sum(sum);
    x = warp_xor(x);
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&stats[0], bad);
        atomicAdd(&stats[1], sum);
        atomicXor(&stats[2], x);
    }
}

// ---- the benchmark --------------------------------------------------------------------------

struct Ctx {
    int reps;
    int warm_copies;
    uint4* warm[2];
    cudaEvent_t start, stop;
    double* cdf[2];  // Zipf's cumulative shares for s = 1 and 1.5
};

static void warm_up(const Ctx& c) {
    size_t n = WARM_WORDS / 4;
    for (int i = 0; i < c.warm_copies; i++)
        copy_kernel<<<grid_for(n), THREADS>>>(c.warm[i & 1], c.warm[(i + 1) & 1], n);
}

// Best and median milliseconds of `run` over c.reps timings after one, each after `restore`.
template <typename R, typename F>
static void best_of(const Ctx& c, R restore, F run, double* best, double* median) {
    std::vector<double> ms;
    for (int rep = 0; rep <= std::max(c.reps, 1); rep++) {
        restore();
        warm_up(c);
        CK(cudaEventRecord(c.start));
        run();
        CK(cudaEventRecord(c.stop));
        CK(cudaEventSynchronize(c.stop));
        CK(cudaGetLastError());
        float t = 0;
        CK(cudaEventElapsedTime(&t, c.start, c.stop));
        if (rep > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    *best = ms[0];
    *median = ms[ms.size() / 2];
}

static double copy_ms(const Ctx& c, size_t words) {
    size_t n = (words + 3) / 4;
    uint4 *a, *b;
    CK(cudaMalloc(&a, n * sizeof(uint4)));
    CK(cudaMalloc(&b, n * sizeof(uint4)));
    CK(cudaMemset(a, 0, n * sizeof(uint4)));
    double best, median;
    best_of(c, [] {}, [&] { copy_kernel<<<grid_for(n), THREADS>>>(a, b, n); }, &best, &median);
    std::printf("copy kernel, %zu MiB: %.3f ms, %.0f GB/s (read + write)\n", (n * 16) >> 20, best,
                2.0 * double(n * 16) / (best * 1e6));
    CK(cudaFree(a));
    CK(cudaFree(b));
    return best;
}

template <typename K, bool PAIRS>
static void bench(const Ctx& c, const char* name, const ShapeSpec& shape, int lg,
                  const uint32_t* d_words, double copy) {
    using U = typename std::conditional<sizeof(K) == 4, uint32_t, uint64_t>::type;
    const size_t n = size_t(1) << lg;
    K *pristine, *k0, *k1;
    uint32_t *vp = nullptr, *v0 = nullptr, *v1 = nullptr, *seen = nullptr;
    unsigned long long* stats;
    CK(cudaMalloc(&pristine, n * sizeof(K)));
    CK(cudaMalloc(&k0, n * sizeof(K)));
    CK(cudaMalloc(&k1, n * sizeof(K)));
    CK(cudaMalloc(&stats, 6 * sizeof(unsigned long long)));
    if (PAIRS) {
        CK(cudaMalloc(&vp, n * sizeof(uint32_t)));
        CK(cudaMalloc(&v0, n * sizeof(uint32_t)));
        CK(cudaMalloc(&v1, n * sizeof(uint32_t)));
        CK(cudaMalloc(&seen, (n / 32 + 1) * sizeof(uint32_t)));
        iota_kernel<<<grid_for(n), THREADS>>>(vp, n);
    }
    CK(cudaMemcpy(pristine, d_words, n * sizeof(K), cudaMemcpyDeviceToDevice));
    U* bits = reinterpret_cast<U*>(pristine);
    if (shape.shape != UNIFORM && shape.shape != SORTED && shape.shape != REVERSED)
        shape_kernel<U><<<grid_for(n), THREADS>>>(bits, n, shape.shape,
                                                  c.cdf[shape.zipf_s > 1.0 ? 1 : 0]);
    CK(cudaGetLastError());

    // Temporary storage, once, outside the timing.
    cub::DoubleBuffer<K> keys(k0, k1);
    cub::DoubleBuffer<uint32_t> values(v0, v1);
    size_t temp_bytes = 0;
    if constexpr (PAIRS)
        CK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, values, int(n)));
    else
        CK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, int(n)));
    // The sorted and reversed shapes sort the keys alone once: room for that too.
    size_t keys_temp_bytes = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, keys_temp_bytes, keys, int(n)));
    void* temp;
    CK(cudaMalloc(&temp, std::max<size_t>(std::max(temp_bytes, keys_temp_bytes), 1)));

    if (shape.shape == SORTED || shape.shape == REVERSED) {
        // The uniform keys sorted by CUB itself (untimed), then reversed if asked.
        CK(cudaMemcpy(k0, pristine, n * sizeof(K), cudaMemcpyDeviceToDevice));
        cub::DoubleBuffer<K> once(k0, k1);
        CK(cub::DeviceRadixSort::SortKeys(temp, keys_temp_bytes, once, int(n)));
        CK(cudaMemcpy(pristine, once.Current(), n * sizeof(K), cudaMemcpyDeviceToDevice));
        if (shape.shape == REVERSED) reverse_kernel<U><<<grid_for(n / 2), THREADS>>>(bits, n);
        CK(cudaDeviceSynchronize());
    }

    auto restore = [&] {
        CK(cudaMemcpyAsync(k0, pristine, n * sizeof(K), cudaMemcpyDeviceToDevice));
        if (PAIRS) CK(cudaMemcpyAsync(v0, vp, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        keys = cub::DoubleBuffer<K>(k0, k1);
        values = cub::DoubleBuffer<uint32_t>(v0, v1);
    };
    auto run = [&] {
        if constexpr (PAIRS)
            CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, values, int(n)));
        else
            CK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, int(n)));
    };
    double best, median;
    best_of(c, restore, run, &best, &median);

    // Check: stats[0..3] of the output, stats[3..6] of the input (its sum and xor).
    CK(cudaMemset(stats, 0, 6 * sizeof(unsigned long long)));
    if (PAIRS) CK(cudaMemset(seen, 0, (n / 32 + 1) * sizeof(uint32_t)));
    check_kernel<K><<<grid_for(n), THREADS>>>(keys.Current(), PAIRS ? values.Current() : nullptr,
                                              pristine, n, stats, seen);
    check_kernel<K><<<grid_for(n), THREADS>>>(pristine, nullptr, pristine, n, stats + 3, nullptr);
    unsigned long long s[6];
    CK(cudaMemcpy(s, stats, sizeof(s), cudaMemcpyDeviceToHost));
    bool ok = s[0] == 0 && s[1] == s[4] && s[2] == s[5];

    std::printf("| %s | %s | 2^%d | %.3f | %.3f | %.2f | %.2fx | %.1f |%s\n", name, shape.name,
                lg, best, median, double(n) / (best * 1e6), best / copy,
                double(temp_bytes) / (1 << 20), ok ? "" : " WRONG |");
    std::fflush(stdout);

    CK(cudaFree(temp));
    CK(cudaFree(pristine));
    CK(cudaFree(k0));
    CK(cudaFree(k1));
    CK(cudaFree(stats));
    if (PAIRS) {
        CK(cudaFree(vp));
        CK(cudaFree(v0));
        CK(cudaFree(v1));
        CK(cudaFree(seen));
    }
}

// benches/gpu.rs's `random_words`.
static std::vector<uint32_t> random_words(size_t n, uint64_t seed) {
    std::vector<uint32_t> out(n);
    uint64_t s = seed | 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out[i] = uint32_t(s >> 16);
    }
    return out;
}

static double* zipf_cdf(double s) {
    std::vector<double> cdf(ZIPF_RANKS);
    double total = 0;
    for (uint32_t r = 0; r < ZIPF_RANKS; r++) {
        total += 1.0 / std::pow(double(r + 1), s);
        cdf[r] = total;
    }
    for (double& x : cdf) x /= total;
    cdf[ZIPF_RANKS - 1] = 1.0;
    double* d;
    CK(cudaMalloc(&d, ZIPF_RANKS * sizeof(double)));
    CK(cudaMemcpy(d, cdf.data(), ZIPF_RANKS * sizeof(double), cudaMemcpyHostToDevice));
    return d;
}

[[noreturn]] static void usage() {
    std::fprintf(stderr,
                 "usage: cub_bench [--keys u32,u64,pairs32,pairs64,i32,i64,f32,f64] "
                 "[--shape NAME,..] [--reps N] [--warm-copies N] LOG2..\n");
    std::exit(2);
}

static std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= s.size()) {
        size_t comma = s.find(',', at);
        if (comma == std::string::npos) comma = s.size();
        out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

int main(int argc, char** argv) {
    std::vector<std::string> keys = {"u32", "u64", "pairs32", "pairs64"};
    std::vector<const ShapeSpec*> shapes = {&SHAPES[0]};
    std::vector<int> sizes;
    Ctx c{};
    c.reps = 10;
    // About 10 ms of copies on an H100: the clocks stay up between repetitions.
    c.warm_copies = 250;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (++i >= argc) usage();
            return argv[i];
        };
        if (a == "--keys") {
            keys = split(value());
        } else if (a == "--shape") {
            shapes.clear();
            for (const std::string& name : split(value())) {
                const ShapeSpec* found = nullptr;
                for (const ShapeSpec& s : SHAPES)
                    if (name == s.name) found = &s;
                if (!found) usage();
                shapes.push_back(found);
            }
        } else if (a == "--reps") {
            c.reps = std::atoi(value().c_str());
        } else if (a == "--warm-copies") {
            c.warm_copies = std::atoi(value().c_str());
        } else if (!a.empty() && a[0] != '-') {
            int lg = std::atoi(a.c_str());
            if (lg < 1 || lg > 29) usage();
            sizes.push_back(lg);
        } else {
            usage();
        }
    }
    if (sizes.empty()) sizes = {20, 24, 26};

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int runtime = 0, driver = 0;
    CK(cudaRuntimeGetVersion(&runtime));
    CK(cudaDriverGetVersion(&driver));
    std::printf("gpu: %s, %d SMs, sm_%d%d; CUDA runtime %d, driver %d; CUB %d.%d.%d\n", prop.name,
                prop.multiProcessorCount, prop.major, prop.minor, runtime, driver,
                CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    for (int i = 0; i < 2; i++) {
        CK(cudaMalloc(&c.warm[i], WARM_WORDS * 4));
        CK(cudaMemset(c.warm[i], 0, WARM_WORDS * 4));
    }
    CK(cudaEventCreate(&c.start));
    CK(cudaEventCreate(&c.stop));
    c.cdf[0] = zipf_cdf(1.0);
    c.cdf[1] = zipf_cdf(1.5);
    // Bring the clocks up from idle (about a second of copies) before any timing.
    for (int i = 0; i < 100; i++) warm_up(c);
    CK(cudaDeviceSynchronize());

    std::printf("| keys | shape | n | best ms | median ms | G keys/s | vs copy | temp MiB |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (int lg : sizes) {
        const size_t n = size_t(1) << lg;
        // Two words a key covers every type; a 32-bit key takes the first n (the benchmark's
        // n words of the same seed).
        std::vector<uint32_t> words = random_words(2 * n, 0x12345678u + uint64_t(lg));
        uint32_t* d_words;
        CK(cudaMalloc(&d_words, 2 * n * sizeof(uint32_t)));
        CK(cudaMemcpy(d_words, words.data(), 2 * n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        double copy = copy_ms(c, n);
        for (const ShapeSpec* shape : shapes) {
            for (const std::string& k : keys) {
                if (k == "u32") bench<uint32_t, false>(c, "u32", *shape, lg, d_words, copy);
                else if (k == "u64") bench<uint64_t, false>(c, "u64", *shape, lg, d_words, copy);
                else if (k == "pairs32") bench<uint32_t, true>(c, "pairs32", *shape, lg, d_words, copy);
                else if (k == "pairs64") bench<uint64_t, true>(c, "pairs64", *shape, lg, d_words, copy);
                else if (k == "i32") bench<int32_t, false>(c, "i32", *shape, lg, d_words, copy);
                else if (k == "i64") bench<int64_t, false>(c, "i64", *shape, lg, d_words, copy);
                else if (k == "f32") bench<float, false>(c, "f32", *shape, lg, d_words, copy);
                else if (k == "f64") bench<double, false>(c, "f64", *shape, lg, d_words, copy);
                else usage();
            }
        }
        CK(cudaFree(d_words));
    }
    return 0;
}
