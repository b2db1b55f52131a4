package backend

import (
	"runtime"
	"runtime/debug"
)

// Versions records what is needed to rerun: Go and the GoMLX modules, with the local copy a
// module was replaced by (the patched pure-Go backend, third_party/README.md).
func Versions() map[string]string {
	v := map[string]string{"go": runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/gomlx/gomlx", "github.com/gomlx/compute", "github.com/gomlx/go-xla":
				v[d.Path] = d.Version
				if d.Replace != nil {
					v[d.Path] += " => " + d.Replace.Path
				}
			}
		}
	}
	return v
}
