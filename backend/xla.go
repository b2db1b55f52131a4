//go:build !noxla

package backend

import (
	"os"

	"github.com/gomlx/go-xla/compute/xla"
)

func init() {
	// Belt and braces: the auto-installer is not linked, and this keeps it off even if a
	// dependency links it.
	if _, ok := os.LookupEnv(xla.NoAutoInstallEnv); !ok {
		_ = os.Setenv(xla.NoAutoInstallEnv, "1")
	}
}

// installedXLAPlugin returns the preferred PJRT plugin already present on this machine, or "".
func installedXLAPlugin() (plugin string) {
	defer func() {
		if recover() != nil {
			plugin = ""
		}
	}()
	xla.EnableAutoInstall(false)
	if plugins := xla.GetAvailablePlugins(); len(plugins) > 0 {
		return plugins[0]
	}
	return ""
}
