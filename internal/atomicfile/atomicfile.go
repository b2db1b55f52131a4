// Package atomicfile writes files so that a reader, an interruption or a crash never sees a
// half-written one: the data go to a temporary file in the same folder, which is synced and
// then renamed over the destination.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Mode is the permission of written files: readable by everyone, as results are meant to be
// shared (os.CreateTemp alone would leave 0600).
const Mode = 0o644

// WriteFile writes data to path atomically, creating its folder if needed.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	merr := f.Chmod(Mode)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, merr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
