// Package atomicfile writes output files so that nothing already there is damaged and no
// half-written file is ever seen:
//
//   - a regular file, or a new one, is written to a temporary file in the same folder,
//     which is synced and then renamed over it;
//   - a symbolic link is followed to the file it leads to, which is written as above: the
//     link itself stays a link;
//   - a character device or a named pipe (/dev/null, a terminal, /dev/stdout when it is a
//     pipe) is written in place, as it cannot be replaced;
//   - anything else is refused: a folder, a socket, a block device (a disk), a link that
//     leads nowhere.
//
// A Batch writes several files all or nothing: if one cannot be written (a full disk), the
// files written before it are put back as they were.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Mode is the permission of written files: readable by everyone, as results are meant to be
// shared (os.CreateTemp alone would leave 0600).
const Mode = 0o644

// Kind is how a path is written.
type Kind int

const (
	New     Kind = iota // nothing is there: a new file is created
	Replace             // a regular file is there: it is replaced, atomically
	Direct              // a device or a pipe is there: it is written in place
)

// Target is what writing a path changes.
type Target struct {
	Path string // the path as given
	// Dest is the file that is written: for New and Replace, the absolute path with every
	// symbolic link resolved (so two paths that name one file have one Dest); for Direct,
	// Path itself.
	Dest string
	Kind Kind
	Link bool // Path is a symbolic link, followed to Dest
}

// Resolve says how path would be written, or why it cannot be: the error names path and
// says how to fix it.
func Resolve(path string) (Target, error) {
	t := Target{Path: path, Dest: path}
	lst, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Kind = New
		t.Dest, err = Canonical(path)
		return t, err
	case err != nil:
		return t, fmt.Errorf("%s: %w; fix: name a file in a folder you can read and write", path, unwrap(err))
	}
	st := lst
	if lst.Mode()&fs.ModeSymlink != 0 {
		t.Link = true
		if st, err = os.Stat(path); err != nil {
			to, _ := os.Readlink(path)
			return t, fmt.Errorf("%s is a symbolic link to %s, which cannot be written (%v); fix: create the file it leads to, remove the link, or name another file", path, to, unwrap(err))
		}
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		t.Kind = Replace
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			// A link with no path of its own, such as /proc/self/fd/1 to a deleted file:
			// the file can only be written through the link.
			t.Kind = Direct
			return t, nil
		}
		if t.Dest, err = filepath.Abs(real); err != nil {
			return t, err
		}
		return t, nil
	case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
		t.Kind = Direct
		return t, nil
	case m.IsDir():
		return t, fmt.Errorf("%s is a folder; fix: name a file", path)
	case m&fs.ModeDevice != 0:
		return t, fmt.Errorf("%s is a block device (a disk), which writing would destroy; fix: name a regular file", path)
	case m&fs.ModeSocket != 0:
		return t, fmt.Errorf("%s is a socket, not a file; fix: name a regular file", path)
	default:
		return t, fmt.Errorf("%s is not a regular file (%v); fix: name a regular file", path, m.Type())
	}
}

// Canonical is the absolute form of path with the symbolic links of its longest existing
// part resolved, so that paths naming one file or folder, existing or not, compare equal.
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(dir) == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFile writes data to path as Resolve says, creating its folder if needed.
func WriteFile(path string, data []byte) error {
	var b Batch
	b.Add(path, data)
	return b.Commit()
}

// Batch is files to write all or nothing. The zero Batch is empty and ready to use.
type Batch struct {
	files []*file
	dirs  []string // folders created by the Staged files added
}

// file is one file of a batch and what Commit has done with it so far.
type file struct {
	path string
	w    io.Writer // instead of path: a stream such as standard output
	data []byte
	t    Target
	tmp  string // the staged copy, before it is renamed to t.Dest
	old  string // a link to the file that was at t.Dest, until the batch is done
	done bool   // in place
	// staged: written by Stage, so tmp (or, for a device, data) is ready and t resolved
	staged bool
}

// Add adds the file path with the given contents.
func (b *Batch) Add(path string, data []byte) {
	b.files = append(b.files, &file{path: path, data: data})
}

// AddStream adds data to be written to w (standard output, say), once every file is in
// place.
func (b *Batch) AddStream(w io.Writer, data []byte) {
	b.files = append(b.files, &file{w: w, data: data})
}

// Staged is a file written piece by piece before it joins a batch (a table streamed as it
// is computed, too large to hold): Stage makes its temporary copy next to its destination
// (or, for a device or pipe, a buffer), Write appends to it, and AddStaged makes it part of
// a batch whose Commit renames it into place with the others, all or nothing. Abort
// removes it.
type Staged struct {
	f    *file
	tf   *os.File // nil for a device or pipe: the data is held in buf
	buf  bytes.Buffer
	dirs []string // folders Stage created, outermost first
}

// Stage starts the staged copy of path, resolved and with its missing folders created as
// Commit would.
func Stage(path string) (*Staged, error) {
	t, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	s := &Staged{f: &file{path: path, t: t, staged: true}}
	if t.Kind == Direct {
		return s, nil
	}
	s.dirs, err = mkdirAll(filepath.Dir(t.Dest))
	if err == nil {
		s.tf, err = os.CreateTemp(filepath.Dir(t.Dest), "."+filepath.Base(t.Dest)+".tmp-*")
	}
	if err != nil {
		s.Abort()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	s.f.tmp = s.tf.Name()
	return s, nil
}

// Write appends p to the staged file.
func (s *Staged) Write(p []byte) (int, error) {
	if s.tf == nil {
		return s.buf.Write(p)
	}
	return s.tf.Write(p)
}

// Abort removes the staged copy and the folders Stage created (if empty).
func (s *Staged) Abort() {
	if s.tf != nil {
		s.tf.Close()
		os.Remove(s.f.tmp)
	}
	for i := len(s.dirs) - 1; i >= 0; i-- {
		os.Remove(s.dirs[i])
	}
}

// AddStaged adds a staged file, complete, to the batch; if it cannot be finished it is
// removed (Abort) and the error says why.
func (b *Batch) AddStaged(s *Staged) error {
	if s.tf == nil {
		s.f.data = s.buf.Bytes()
	} else if err := errors.Join(s.tf.Chmod(Mode), s.tf.Sync(), s.tf.Close()); err != nil {
		s.Abort()
		return fmt.Errorf("writing %s: %w", s.f.path, err)
	}
	b.files = append(b.files, s.f)
	b.dirs = append(b.dirs, s.dirs...)
	return nil
}

// rename is os.Rename, for a test to make a rename fail part-way.
var rename = os.Rename

// Commit writes every file of the batch, or none. It first writes each new or replaced file
// to a temporary file in its folder (creating missing folders); only when all are written
// does it rename them over their destinations, keeping the files they replace aside; then
// it writes devices, pipes and streams. If any step fails, the files already in place are
// put back as they were (the replaced ones restored, the new ones removed), the temporary
// files and the folders it created are removed, and the error says which file failed.
// Only a device, pipe or stream written before the failure cannot be taken back, which is
// why they come last.
func (b *Batch) Commit() (err error) {
	dirs := slices.Clone(b.dirs) // folders created, deepest last
	defer func() {
		if err != nil {
			err = errors.Join(err, b.rollback(dirs))
			return
		}
		for _, f := range b.files {
			if f.old != "" {
				os.Remove(f.old)
			}
		}
	}()
	seen := map[string]bool{}
	for _, f := range b.files {
		if f.w != nil {
			continue
		}
		if !f.staged {
			if f.t, err = Resolve(f.path); err != nil {
				return err
			}
		}
		if f.t.Kind != Direct {
			if seen[f.t.Dest] {
				return fmt.Errorf("%s is written twice; fix: give each output its own file", f.path)
			}
			seen[f.t.Dest] = true
		}
	}
	for _, f := range b.files {
		if f.w != nil || f.t.Kind == Direct || f.staged {
			continue
		}
		created, err := mkdirAll(filepath.Dir(f.t.Dest))
		dirs = append(dirs, created...)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
		if err := f.stage(); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	for _, f := range b.files {
		if f.tmp == "" {
			continue
		}
		if err := f.swap(); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	for _, f := range b.files {
		switch {
		case f.w != nil:
			if _, err := f.w.Write(f.data); err != nil {
				return fmt.Errorf("writing to standard output: %w", err)
			}
		case f.t.Kind == Direct:
			if err := writeDirect(f.path, f.data); err != nil {
				return fmt.Errorf("writing %s: %w", f.path, err)
			}
		}
	}
	return nil
}

// mkdirAll creates dir and its missing parents, and returns those it created, outermost
// first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append([]string{d}, missing...)
	}
	var created []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, err
		} else if err == nil {
			created = append(created, d)
		}
	}
	return created, nil
}

// stage writes the file's data to a synced temporary file next to its destination.
func (f *file) stage() error {
	tf, err := os.CreateTemp(filepath.Dir(f.t.Dest), "."+filepath.Base(f.t.Dest)+".tmp-*")
	if err != nil {
		return err
	}
	f.tmp = tf.Name()
	_, werr := tf.Write(f.data)
	merr := tf.Chmod(Mode)
	serr := tf.Sync()
	cerr := tf.Close()
	return errors.Join(werr, merr, serr, cerr)
}

// swap renames the staged file over the destination. A file it replaces is first linked to
// another name, so that it can be restored; where the file system has no hard links it is
// renamed aside instead, which leaves the destination missing for a moment.
func (f *file) swap() error {
	if f.t.Kind == Replace {
		old, err := sideName(f.t.Dest)
		if err != nil {
			return err
		}
		if err := os.Link(f.t.Dest, old); err != nil {
			if err := rename(f.t.Dest, old); err != nil {
				return err
			}
		}
		f.old = old
	}
	if err := rename(f.tmp, f.t.Dest); err != nil {
		return err
	}
	f.tmp, f.done = "", true
	return nil
}

// sideName is a name no file has yet, next to path, for the file at path while the batch
// is written.
func sideName(path string) (string, error) {
	tf, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".old-*")
	if err != nil {
		return "", err
	}
	name := tf.Name()
	tf.Close()
	return name, os.Remove(name)
}

// rollback puts back what a failed Commit changed: the files in place are restored or
// removed, the staged copies and the created folders (if empty) removed. A replaced file
// that cannot be restored is left under its side name, which the error gives.
func (b *Batch) rollback(dirs []string) error {
	var errs []error
	for i := len(b.files) - 1; i >= 0; i-- {
		f := b.files[i]
		switch {
		case f.old != "" && (f.done || !exists(f.t.Dest)):
			if err := os.Rename(f.old, f.t.Dest); err != nil {
				errs = append(errs, fmt.Errorf("the previous %s could not be put back and is kept as %s: %w", f.t.Dest, f.old, unwrap(err)))
			}
		case f.old != "":
			os.Remove(f.old) // a link to the file still in place
		case f.done:
			os.Remove(f.t.Dest)
		}
		if f.tmp != "" {
			os.Remove(f.tmp)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // only if empty
	}
	return errors.Join(errs...)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeDirect writes data to a device or a pipe, or through a link that has no path of its
// own, without replacing it.
func writeDirect(path string, data []byte) error {
	flag := os.O_WRONLY
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}
