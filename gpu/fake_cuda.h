// A host stand-in for the few CUDA runtime calls driver.cu makes, so that the driver's logic
// (verification, timing loops, cooperative split, JSON) can be run without a GPU:
//   g++ -std=c++17 -O2 -x c++ -DFF_FAKE_CUDA gpu/driver.cu -o driver-host -pthread
// Copies are memcpy, "device" memory is host memory, kernels run on the calling thread.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>

typedef int cudaError_t;
typedef int cudaStream_t;
typedef double cudaEvent_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaHostAllocDefault = 0,
       cudaStreamNonBlocking = 1 };
struct cudaDeviceProp {
    char name[256];
    int multiProcessorCount;
    int l2CacheSize;
};

inline double fake_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline const char* cudaGetErrorString(cudaError_t) { return "fake"; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
    std::strcpy(p->name, "host stand-in (fake_cuda.h)");
    p->multiProcessorCount = 1;
    p->l2CacheSize = 0;
    return 0;
}
template <class T>
cudaError_t cudaMalloc(T** p, size_t n) { return (*p = (T*)std::malloc(n)) ? 0 : 1; }
template <class T>
cudaError_t cudaHostAlloc(T** p, size_t n, int) { return cudaMalloc(p, n); }
inline cudaError_t cudaFree(void* p) { std::free(p); return 0; }
inline cudaError_t cudaFreeHost(void* p) { std::free(p); return 0; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, int) { std::memmove(d, s, n); return 0; }
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, int, cudaStream_t) { return cudaMemcpy(d, s, n, 0); }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, int) { *s = 0; return 0; }
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return 0; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
inline cudaError_t cudaDeviceSynchronize() { return 0; }
inline cudaError_t cudaGetLastError() { return 0; }
typedef void (*cudaHostFn_t)(void*);
inline cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t f, void* data) { f(data); return 0; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = 0; return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t& e, cudaStream_t = 0) { e = fake_now(); return 0; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)((b - a) * 1e3); return 0; }
