package pipeline_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/internal/modeltest"
)

// Interrupting a program while it trains (what GoNB does to a cell: SIGINT) stops it at
// once and leaves the cache with complete entries only: the classifier written before the
// interrupt, no VAE file and no temporary file.
func TestInterruptLeavesNoHalfWrittenCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "interrupt")
	if out, err := exec.Command("go", slices.Concat([]string{"build"}, modeltest.BuildFlags(), []string{"-o", bin, "./testdata/interrupt"})...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cache := filepath.Join(dir, "cache")
	cmd := exec.Command(bin, cache)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The two models train at the same time. The interrupt goes out on the event that both
	// the classifier is in the cache and the VAE's training has begun; the VAE cannot finish
	// first, however fast training gets: the program gives it no epoch or step limit in reach.
	sc := bufio.NewScanner(stdout)
	var classifierSaved, vaeTraining bool
	for !(classifierSaved && vaeTraining) && sc.Scan() {
		classifierSaved = classifierSaved || strings.HasPrefix(sc.Text(), "trained the classifier")
		vaeTraining = vaeTraining || strings.HasPrefix(sc.Text(), "training the VAE")
	}
	if !(classifierSaved && vaeTraining) {
		cmd.Process.Kill()
		t.Fatalf("the program's output ended before the classifier was saved while the VAE trained (%v)", cmd.Wait())
	}
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	t.Logf("stopped %.2f s after SIGINT (%v)", time.Since(sent).Seconds(), err)
	if err == nil {
		t.Fatal("the program finished instead of being interrupted")
	}
	var files, clfDirs []string
	filepath.Walk(cache, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(cache, p)
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case info.IsDir() && len(parts) == 2 && parts[1] == "classifier":
			clfDirs = append(clfDirs, p)
		case !info.IsDir() && (len(parts) != 3 || parts[1] != "classifier"):
			files = append(files, rel)
		}
		return nil
	})
	if len(files) != 0 || len(clfDirs) != 1 {
		t.Fatalf("cache after the interrupt holds %v besides %v; want only the complete classifier folder", files, clfDirs)
	}
	if _, err := classifier.Load(clfDirs[0]); err != nil {
		t.Errorf("the classifier left in the cache does not load: %v", err)
	}
}
