package simd

import "github.com/gomlx/compute/support/envutil"

// The kernel sets KernelSet names.
const (
	AVX512  = "avx512"  // the AVX-512 matrix kernels
	AVX2    = "avx2"    // the AVX2 matrix kernels
	Generic = "generic" // the backend's plain Go kernels
)

// matmulEnv switches all of the pure-Go backend's matrix kernels off when false (matmul's
// EnabledEnv; the package is internal to the compute module, so the name is repeated here).
const matmulEnv = "GOMLX_DOT_MATMUL"

// KernelSet names the matrix kernels the pure-Go backend runs in this process: AVX512, AVX2
// or Generic. It applies the rule the backend applies at start-up (third_party/gomlx-compute,
// dot/matmul's init functions and avx512KernelsChosen) to this binary and processor.
func KernelSet() string {
	hasAVX2, hasAVX512 := cpuFeatures()
	return kernelSet(Enabled && hasAVX2, Enabled && hasAVX512)
}

// kernelSet is the backend's choice, given whether the AVX2 and AVX-512 kernels could run
// (compiled in and supported by the processor), from the environment: the AVX-512 kernels only
// when GOMLX_GO_SIMD_AVX512 asks for them (the AVX2 ones are faster on the processors measured;
// see third_party/README.md), the AVX2 ones unless GOMLX_GO_SIMD_AVX2 says no, and none of them
// when GOMLX_DOT_MATMUL is off. A variable the backend cannot read has stopped the process
// at start-up already, so its default stands in here.
func kernelSet(avx2, avx512 bool) string {
	on := func(name string, def bool) bool {
		v, err := envutil.ReadBool(name, def)
		if err != nil {
			return def
		}
		return v
	}
	switch {
	case !on(matmulEnv, true):
		return Generic
	case avx512 && on(envutil.GoBackendSIMD_AVX512, false):
		return AVX512
	case avx2 && on(envutil.GoBackendSIMD_AVX2, true):
		return AVX2
	}
	return Generic
}
