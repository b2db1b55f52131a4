package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// files lists the names in dir (hidden ones too), sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func isLink(t *testing.T, path string) bool {
	t.Helper()
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// A new file and a replaced one are written whole, readable by others, with no temporary
// file left.
func TestWriteFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "deeper", "a.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFile(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got := read(t, p); got != content {
			t.Errorf("%q, want %q", got, content)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != Mode {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if got := files(t, filepath.Dir(p)); !slices.Equal(got, []string{"a.json"}) {
		t.Errorf("folder holds %v", got)
	}
}

// A symbolic link is followed: the file it leads to is replaced, and the link stays a link
// (the command once replaced the system's /dev/stdout link with a regular file).
func TestWriteFileThroughLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "data", "real.json")
	os.Mkdir(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(filepath.Join("data", "real.json"), link); err != nil {
		t.Fatal(err)
	}
	tg, err := Resolve(link)
	if err != nil || tg.Kind != Replace || !tg.Link || tg.Dest != target {
		t.Fatalf("Resolve: %+v, %v; want Replace of %s", tg, err, target)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if !isLink(t, link) {
		t.Errorf("%s is no longer a link", link)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target holds %q", got)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"data", "link.json"}) {
		t.Errorf("folder holds %v", got)
	}
	if got := files(t, filepath.Dir(target)); !slices.Equal(got, []string{"real.json"}) {
		t.Errorf("target's folder holds %v", got)
	}
}

// Devices and pipes are written in place: /dev/null, a link to it, and a named pipe, which
// stay what they were.
func TestWriteFileDevices(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/null", link} {
		tg, err := Resolve(p)
		if err != nil || tg.Kind != Direct {
			t.Fatalf("Resolve(%s): %+v, %v; want Direct", p, tg, err)
		}
		if err := WriteFile(p, []byte("gone")); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(p); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a device: %v", p, err)
		}
	}
	if !isLink(t, link) {
		t.Errorf("%s is no longer a link", link)
	}

	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteFile(fifo, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe is now %v", st.Mode())
	}
	if got := files(t, dir); !slices.Equal(got, []string{"null", "pipe"}) {
		t.Errorf("folder holds %v", got)
	}
}

// A link with no path of its own (/proc/self/fd/N of a deleted file) is written through.
func TestWriteFileThroughProcLink(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "deleted")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("a longer old text")
	os.Remove(f.Name())
	p := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if _, err := os.Lstat(p); err != nil {
		t.Skip("no /proc")
	}
	if tg, err := Resolve(p); err != nil || tg.Kind != Direct {
		t.Fatalf("Resolve: %+v, %v; want Direct", tg, err)
	}
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "new" {
		t.Errorf("the file holds %q", b)
	}
}

// What cannot be written safely is refused, and left as it was.
func TestResolveRefuses(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct{ path, want string }{
		{dangling, "is a symbolic link to " + filepath.Join(dir, "nowhere", "x") + ", which cannot be written"},
		{dir, "is a folder"},
		{sock, "is a socket"},
	} {
		_, err := Resolve(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("Resolve(%s): %v; want %q and a fix", tc.path, err, tc.want)
		}
		if err := WriteFile(tc.path, []byte("x")); err == nil {
			t.Errorf("WriteFile(%s) succeeded", tc.path)
		}
	}
	if !isLink(t, dangling) {
		t.Errorf("the dangling link was replaced")
	}
	if got := files(t, dir); !slices.Equal(got, []string{"dangling", "sock"}) {
		t.Errorf("folder holds %v", got)
	}
	// A block device, where there is one to test with.
	for _, p := range []string{"/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1"} {
		if st, err := os.Stat(p); err == nil && st.Mode()&fs.ModeDevice != 0 && st.Mode()&fs.ModeCharDevice == 0 {
			if _, err := Resolve(p); err == nil || !strings.Contains(err.Error(), "block device") {
				t.Errorf("Resolve(%s): %v; want a refusal", p, err)
			}
			break
		}
	}
}

// Paths that name one file resolve to one Dest: through "." and "..", and through a link to
// a folder, whether the file exists or not.
func TestResolveDest(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	os.Symlink(real, filepath.Join(dir, "alias"))
	for _, name := range []string{"new.json", "old.json"} {
		if name == "old.json" {
			os.WriteFile(filepath.Join(real, name), nil, 0o644)
		}
		want := filepath.Join(real, name)
		for _, p := range []string{want, filepath.Join(dir, "alias", name), dir + "/./real/../alias/" + name} {
			tg, err := Resolve(p)
			if err != nil || tg.Dest != want {
				t.Errorf("Resolve(%s): Dest %q, %v; want %q", p, tg.Dest, err, want)
			}
		}
	}
}

// batchFiles is a batch of files in dir: a file that exists (and is replaced), a new one,
// and new ones in a folder that does not exist yet, the last over 64 KiB.
func batchFiles(dir string) (*Batch, map[string]string) {
	os.WriteFile(filepath.Join(dir, "kept.json"), []byte("the user's file"), 0o644)
	want := map[string]string{
		"kept.json":    "replacement",
		"new.csv":      "a,b",
		"svg/1.svg":    "<svg/>",
		"svg/2.svg":    "<svg></svg>",
		"svg/big.json": strings.Repeat("x", 1<<17),
	}
	var b Batch
	for _, name := range []string{"kept.json", "new.csv", "svg/1.svg", "svg/2.svg", "svg/big.json"} {
		b.Add(filepath.Join(dir, name), []byte(want[name]))
	}
	return &b, want
}

// untouched checks that dir holds only the user's file, as it was.
func untouched(t *testing.T, dir string) {
	t.Helper()
	if got := files(t, dir); !slices.Equal(got, []string{"kept.json"}) {
		t.Errorf("folder holds %v, want only the user's file", got)
	}
	if got := read(t, filepath.Join(dir, "kept.json")); got != "the user's file" {
		t.Errorf("the user's file holds %q", got)
	}
}

func TestBatchCommits(t *testing.T) {
	dir := t.TempDir()
	b, want := batchFiles(dir)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for name, content := range want {
		if got := read(t, filepath.Join(dir, name)); got != content {
			t.Errorf("%s holds %.20q", name, got)
		}
	}
	if got := files(t, dir); !slices.Equal(got, []string{"kept.json", "new.csv", "svg"}) {
		t.Errorf("folder holds %v", got)
	}
}

// A disk that fills while the files are staged: no file of the batch is left, and the
// user's file is as it was. The file size limit makes the last, largest file fail as a full
// disk would.
func TestBatchFullDiskWhileStaging(t *testing.T) {
	dir := t.TempDir()
	b, _ := batchFiles(dir)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	small := lim
	small.Cur = 1 << 16
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skip("cannot limit the file size:", err)
	}
	err := b.Commit()
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim)
	if err == nil || !strings.Contains(err.Error(), "big.json") {
		t.Fatalf("Commit: %v; want an error naming big.json", err)
	}
	untouched(t, dir)
}

// A rename that fails part-way (the third of five): the files already renamed are put back,
// the user's file restored.
func TestBatchRenameFails(t *testing.T) {
	dir := t.TempDir()
	b, _ := batchFiles(dir)
	n := 0
	rename = func(from, to string) error {
		if strings.Contains(from, ".tmp-") {
			if n++; n == 3 {
				return &fs.PathError{Op: "rename", Path: to, Err: syscall.EIO}
			}
		}
		return os.Rename(from, to)
	}
	defer func() { rename = os.Rename }()
	if err := b.Commit(); err == nil || !strings.Contains(err.Error(), "1.svg") {
		t.Fatalf("Commit: %v; want an error naming 1.svg", err)
	}
	untouched(t, dir)
}

// A device that fails after the files are in place (/dev/full, a full disk): they are put
// back too.
func TestBatchDeviceFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	b, _ := batchFiles(dir)
	b.Add("/dev/full", []byte("x"))
	if err := b.Commit(); err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Commit: %v; want no space left", err)
	}
	untouched(t, dir)
}

// A stream that fails (standard output closed) undoes the files as well; one that works
// gets its data after them.
func TestBatchStream(t *testing.T) {
	dir := t.TempDir()
	b, _ := batchFiles(dir)
	r, w, _ := os.Pipe()
	r.Close()
	b.AddStream(w, []byte("{}"))
	if err := b.Commit(); err == nil || !strings.Contains(err.Error(), "standard output") {
		t.Fatalf("Commit: %v; want an error writing standard output", err)
	}
	w.Close()
	untouched(t, dir)

	var out strings.Builder
	b, _ = batchFiles(dir)
	b.AddStream(&out, []byte("{}"))
	if err := b.Commit(); err != nil || out.String() != "{}" {
		t.Errorf("Commit: %v, stream %q", err, out.String())
	}
}

// One file named twice, through a link, is refused before anything is written.
func TestBatchSameFileTwice(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("0"), 0o644)
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	var b Batch
	b.Add(filepath.Join(dir, "a"), []byte("1"))
	b.Add(filepath.Join(dir, "b"), []byte("2"))
	if err := b.Commit(); err == nil || !strings.Contains(err.Error(), "written twice") {
		t.Fatalf("Commit: %v", err)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"a", "b"}) || read(t, filepath.Join(dir, "a")) != "0" {
		t.Errorf("folder holds %v", got)
	}
}

// A file staged piece by piece joins the batch: written with the others when it commits,
// gone with its new folder when the batch fails or the file is aborted.
func TestBatchStaged(t *testing.T) {
	stage := func(t *testing.T, dir string) (*Batch, *Staged) {
		t.Helper()
		b, _ := batchFiles(dir)
		s, err := Stage(filepath.Join(dir, "rows", "long.csv"))
		if err != nil {
			t.Fatal(err)
		}
		for _, piece := range []string{"a,b\n", "1,2\n", "3,4\n"} {
			if _, err := s.Write([]byte(piece)); err != nil {
				t.Fatal(err)
			}
		}
		return b, s
	}
	t.Run("commits", func(t *testing.T) {
		dir := t.TempDir()
		b, s := stage(t, dir)
		if err := b.AddStaged(s); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := read(t, filepath.Join(dir, "rows", "long.csv")); got != "a,b\n1,2\n3,4\n" {
			t.Errorf("the staged file holds %q", got)
		}
		if got := files(t, filepath.Join(dir, "rows")); !slices.Equal(got, []string{"long.csv"}) {
			t.Errorf("its folder holds %v", got)
		}
	})
	t.Run("a failing batch removes it", func(t *testing.T) {
		dir := t.TempDir()
		b, s := stage(t, dir)
		if err := b.AddStaged(s); err != nil {
			t.Fatal(err)
		}
		b.Add(filepath.Join(dir, "kept.json", "under-a-file"), []byte("x"))
		if err := b.Commit(); err == nil {
			t.Fatal("Commit wrote a file under a file")
		}
		untouched(t, dir)
	})
	t.Run("abort removes it", func(t *testing.T) {
		dir := t.TempDir()
		_, s := stage(t, dir)
		s.Abort()
		untouched(t, dir)
	})
}
