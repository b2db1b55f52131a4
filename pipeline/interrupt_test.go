package pipeline_test

import (
	"github.com/quce-go/quce/classifier"

	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/interrupt").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cache := filepath.Join(dir, "cache")
	cmd := exec.Command(bin, cache)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	// The two models train at the same time; the classifier is done well before the VAE.
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "trained the classifier") {
	}
	time.Sleep(300 * time.Millisecond)
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
