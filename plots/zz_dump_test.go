package plots

import (
	"os"
	"path/filepath"
	"testing"
)

func TestZZDump(t *testing.T) {
	dir := os.Getenv("PLOTS_DUMP")
	if dir == "" {
		t.Skip()
	}
	for name, draw := range allPlots() {
		b, err := draw(Options{})
		if err != nil {
			t.Fatal(name, err)
		}
		os.WriteFile(filepath.Join(dir, name+".svg"), b, 0o644)
	}
}
