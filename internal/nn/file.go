package nn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FileFormat names the on-disk format of saved models.
const FileFormat = "quce-model/1"

// envelope is what a model file holds: the payload and its SHA-256, so a truncated or
// edited file is detected instead of being loaded as garbage.
type envelope struct {
	Format  string          `json:"format"`
	Kind    string          `json:"kind"`
	SHA256  string          `json:"sha256"`
	Payload json.RawMessage `json:"payload"`
}

// ErrCorrupt is wrapped by every load error that comes from a damaged file.
var ErrCorrupt = errors.New("corrupt model file")

// Save writes v (any JSON-serialisable model) to path atomically: it writes a temporary
// file in the same folder, syncs it, then renames it over path.
func Save(path, kind string, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("saving %s to %s: %w", kind, path, err)
	}
	sum := sha256.Sum256(payload)
	data, err := json.Marshal(envelope{Format: FileFormat, Kind: kind, SHA256: hex.EncodeToString(sum[:]), Payload: payload})
	if err != nil {
		return fmt.Errorf("saving %s to %s: %w", kind, path, err)
	}
	return WriteFileAtomic(path, data)
}

// Load reads a file written by Save into v, checking the format, the kind and the checksum.
func Load(path, kind string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("loading %s: %w", kind, err)
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("loading %s from %s: %w: %v; fix: delete the file and retrain", kind, path, ErrCorrupt, err)
	}
	if env.Format != FileFormat || env.Kind != kind {
		return fmt.Errorf("loading %s from %s: %w: holds format %q kind %q, want %q kind %q; fix: point to a %s file or retrain",
			kind, path, ErrCorrupt, env.Format, env.Kind, FileFormat, kind, kind)
	}
	sum := sha256.Sum256(env.Payload)
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return fmt.Errorf("loading %s from %s: %w: checksum mismatch; fix: delete the file and retrain", kind, path, ErrCorrupt)
	}
	if err := json.Unmarshal(env.Payload, v); err != nil {
		return fmt.Errorf("loading %s from %s: %w: %v", kind, path, ErrCorrupt, err)
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file and a rename, so that a
// reader (or a crash) never sees a half-written file.
func WriteFileAtomic(path string, data []byte) error {
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
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
