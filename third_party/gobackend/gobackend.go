// Package gobackend is GoMLX's pure-Go [compute.Backend] (github.com/gomlx/compute v0.1.6's
// gobackend) with a series of patches, as a package of this module: faster kernels for small
// networks, two fixes of While loops, virtual devices. It implements the public interfaces
// of the github.com/gomlx/compute version the module requires and registers itself as
// "gopatched" (BackendName), beside GoMLX's own "go"; importing it is enough for
// GOMLX_BACKEND=gopatched. third_party/README.md lists the patches and how the copy is
// rebuilt from its upstream source.
//
// This package is simply a thin wrapper around internal/gobackend.
package gobackend

import (
	"sync"

	"github.com/gomlx/compute"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"

	// Registers all the ops.
	_ "github.com/quce-go/quce/third_party/gobackend/internal/gobackend/defaultpkgs"
)

// BackendName to be used in GOMLX_BACKEND to specify this backend.
const BackendName = gobackend.BackendName

// GetBackend returns a singleton Go backend, created with the default configuration.
// The backend is only created at the first call of the function.
//
// The singleton is never destroyed.
var GetBackend = sync.OnceValue(func() compute.Backend {
	backend, err := New("")
	if err != nil {
		panic(err)
	}
	return backend
})

// New constructs a new Go Backend.
// There are no configurations, the string is simply ignored.
func New(config string) (compute.Backend, error) {
	return gobackend.New(config)
}
