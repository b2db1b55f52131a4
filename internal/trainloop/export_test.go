package trainloop

import "github.com/gomlx/compute"

// WithoutClosures makes runs unroll their epochs' steps, as on a backend without closures,
// until the returned restore is called.
func WithoutClosures() (restore func()) {
	old := hasClosures
	hasClosures = func(compute.Backend) bool { return false }
	return func() { hasClosures = old }
}
