// Package savedmodel saves and loads the project's trained models as GoMLX checkpoints with
// a checksum manifest beside them.
//
// A saved model is a folder holding
//
//   - one GoMLX checkpoint of the model's variables (checkpoint-….json and checkpoint-….bin,
//     written by package checkpoint), so a user can load it in their own GoMLX code with
//     checkpoint.Load(store).Dir(dir).Done();
//   - manifest.json: the format, the model's kind ("classifier", "vae"), the caller's
//     metadata (configuration, feature count, …) and the SHA-256 of every checkpoint file,
//     itself protected by a SHA-256 of its body.
//
// Load verifies the manifest and every checksum before it touches the variables, so a
// truncated, edited or missing file is reported (as an error wrapping ErrCorrupt) instead of
// being loaded as a wrong model; GoMLX's checkpoint format has no checksum of its own. The
// variables are then read from the verified bytes, not from the files again. A model of
// another kind than the caller asks for is refused (ErrWrongKind) before anything is read,
// and the caller's check of the metadata against the variables (Load's build) is the last
// step, so every model package loads the same way.
//
// Save writes everything into a temporary sibling folder, syncs it and renames it into place
// (swapping it atomically with an existing folder on Linux), so neither a reader nor a crash
// ever sees a half-written model.
package savedmodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// Format names the on-disk layout; put it in cache keys so a change of layout misses old
// entries instead of tripping over them. Version 1 was a single checksummed JSON file;
// version 2 kept the kind inside the caller's metadata.
const Format = "quce-model/3"

// ManifestName is the manifest's file name inside a saved model's folder.
const ManifestName = "manifest.json"

// ErrCorrupt is wrapped by every Load error that comes from a damaged saved model.
var ErrCorrupt = errors.New("damaged saved model")

// ErrWrongKind is wrapped by the Load error for a sound saved model of another kind than
// asked for (a VAE's folder where a classifier's is wanted).
var ErrWrongKind = errors.New("saved model of another kind")

// checkpointPrefix starts the names of GoMLX's checkpoint files.
const checkpointPrefix = "checkpoint-"

// manifest is the file's outer object: the body and the SHA-256 of its compact JSON, so an
// edit of the metadata or of a file checksum is detected too.
type manifest struct {
	SHA256 string          `json:"sha256"`
	Body   json.RawMessage `json:"body"`
}

type body struct {
	Format string            `json:"format"`
	Kind   string            `json:"kind"`
	Meta   json.RawMessage   `json:"meta"`
	Files  map[string]string `json:"files"` // file name → SHA-256 (hex)
}

// Kind is one kind of saved model: the name its manifest records, and how a model of that
// kind is made from the variables and the metadata (Meta, any JSON-serialisable type) saved
// with them. Each model package declares its Kind once and saves and loads through it.
type Kind[Meta, M any] struct {
	Name string
	// Build makes the model; an error says that the metadata and the variables do not fit.
	Build func(store *model.Store, meta Meta) (M, error)
}

// Save writes the variables of store as a GoMLX checkpoint, and the kind's name and meta with
// the checksums into manifest.json, into dir, replacing whatever dir held. The store is not
// changed. Only the checkpoint's files are saved: nothing else is kept in dir.
func (k Kind[Meta, M]) Save(dir string, store *model.Store, meta Meta) error {
	if err := save(dir, store, k.Name, meta); err != nil {
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	return nil
}

func save(dir string, store *model.Store, kind string, meta any) (err error) {
	if store == nil {
		return errors.New("no store given")
	}
	if kind == "" {
		return errors.New("no kind given")
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := writeCheckpoint(tmp, store); err != nil {
		return err
	}
	files, err := checksums(tmp)
	if err != nil {
		return err
	}
	b, err := json.Marshal(body{Format: Format, Kind: kind, Meta: metaJSON, Files: files})
	if err != nil {
		return err
	}
	m, err := json.MarshalIndent(manifest{SHA256: sum(b), Body: b}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeSynced(filepath.Join(tmp, ManifestName), append(m, '\n')); err != nil {
		return err
	}
	// os.MkdirTemp makes the folder private; saved models are meant to be shared like the
	// other results.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	if err := replace(tmp, dir); err != nil {
		return err
	}
	return syncDir(parent)
}

// writeCheckpoint saves store's variables and parameters with GoMLX's checkpoint package.
// It goes through a second store sharing the values, because checkpoint attaches itself to
// the store it saves and adds a global-step variable to it; that variable is left out of the
// file unless the caller's store had one.
func writeCheckpoint(dir string, store *model.Store) error {
	s := model.NewStore()
	hasStep := false
	for v := range store.IterVariables() {
		value, err := v.Value()
		if err != nil {
			return fmt.Errorf("variable %s: %w", v.Path(), err)
		}
		if _, err := s.CreateVariable(v.Path(), value); err != nil {
			return err
		}
		hasStep = hasStep || v.Path() == "/"+optimizer.GlobalStepVariableName
	}
	for path, value := range store.IterParams() {
		s.SetParam(path, value)
	}
	step := optimizer.GetGlobalStepVar(s)
	cfg := checkpoint.Build(s).Dir(dir)
	if !hasStep {
		cfg = cfg.ExcludeVars(step)
	}
	h, err := cfg.Done()
	if err != nil {
		return err
	}
	return h.Save()
}

// checksums syncs every file in dir and returns their SHA-256s.
func checksums(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("checkpoint wrote %s, which is not a plain file", e.Name())
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		// GoMLX closes its files without syncing them; a crash after the rename below must
		// not leave a folder whose manifest promises data that never reached the disk.
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		serr := f.Sync()
		if err := errors.Join(serr, f.Close()); err != nil {
			return nil, err
		}
		files[e.Name()] = sum(data)
	}
	if len(files) == 0 {
		return nil, errors.New("checkpoint wrote no files")
	}
	return files, nil
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	return errors.Join(werr, serr, f.Close())
}

// syncDir makes a folder's entries durable. Windows cannot sync a folder (nor needs to).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := f.Sync()
	return errors.Join(serr, f.Close())
}

// replace puts the finished folder tmp at dir. A plain rename does when dir is absent; an
// existing dir is swapped with tmp in one step where the system can (Linux's
// RENAME_EXCHANGE), else moved aside first, which leaves a moment with no model at dir but
// never a half-written one.
func replace(tmp, dir string) error {
	if err := os.Rename(tmp, dir); err == nil {
		return nil
	}
	if _, err := os.Lstat(dir); err != nil {
		return err
	}
	if err := exchange(tmp, dir); err == nil {
		return os.RemoveAll(tmp) // tmp now holds the old model
	}
	trash, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".old-*")
	if err != nil {
		return err
	}
	old := filepath.Join(trash, "old")
	if err := os.Rename(dir, old); err != nil {
		os.Remove(trash)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("%w (and restoring the previous model failed: %v; it is in %s)", err, rerr, old)
		}
		os.Remove(trash)
		return err
	}
	return os.RemoveAll(trash)
}

// Load verifies the saved model in dir and returns what Build makes of a new store holding
// its variables and of its metadata. A folder that does not exist gives an error wrapping
// fs.ErrNotExist, a model of another kind an error wrapping ErrWrongKind, and any damage an
// error wrapping ErrCorrupt that names the file. An error from Build is damage too: the
// checksums matched, so the metadata and the variables are what was saved, but they do not
// fit each other.
func (k Kind[Meta, M]) Load(dir string) (M, error) {
	var meta Meta
	var none M
	store, err := load(dir, k.Name, &meta)
	if err != nil {
		return none, err
	}
	m, err := k.Build(store, meta)
	if err != nil {
		return none, corrupt(dir, "%s and the variables do not make a %s: %v", ManifestName, k.Name, err)
	}
	return m, nil
}

// load verifies the saved model of the given kind in dir, unmarshals its metadata into meta
// (a pointer) and returns a new store holding its variables.
func load(dir, kind string, meta any) (*model.Store, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("loading model: %w", err)
		}
		if info, serr := os.Stat(dir); serr == nil && !info.IsDir() {
			return nil, corrupt(dir, "it is a file, not a saved model's folder (an older format?)")
		}
		return nil, fmt.Errorf("loading model: %w", err)
	}
	defer root.Close()

	raw, err := root.ReadFile(ManifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, corrupt(dir, "%s is missing", ManifestName)
	} else if err != nil {
		return nil, fmt.Errorf("loading model from %s: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Body == nil {
		return nil, corrupt(dir, "%s is not a manifest (%v)", ManifestName, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, m.Body); err != nil || sum(compact.Bytes()) != m.SHA256 {
		return nil, corrupt(dir, "%s was edited or damaged (checksum mismatch)", ManifestName)
	}
	var b body
	if err := json.Unmarshal(m.Body, &b); err != nil {
		return nil, corrupt(dir, "%s: %v", ManifestName, err)
	}
	if b.Format != Format {
		return nil, corrupt(dir, "%s holds format %q, want %q", ManifestName, b.Format, Format)
	}
	if b.Kind == "" {
		return nil, corrupt(dir, "%s names no kind of model", ManifestName)
	}
	if b.Kind != kind {
		return nil, fmt.Errorf("loading model from %s: %w: it holds a %s, not a %s; fix: give the folder of a saved %s", dir, ErrWrongKind, b.Kind, kind, kind)
	}

	// Every listed file must be there, unchanged; no other checkpoint may be, since GoMLX's
	// own loader would pick the newest one.
	data := map[string][]byte{}
	for _, name := range slices.Sorted(maps.Keys(b.Files)) {
		content, err := root.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, corrupt(dir, "%s is missing", name)
		} else if err != nil {
			return nil, corrupt(dir, "%s cannot be read: %v", name, err)
		}
		if sum(content) != b.Files[name] {
			return nil, corrupt(dir, "%s is truncated or edited (checksum mismatch)", name)
		}
		data[name] = content
	}
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("loading model from %s: %w", dir, err)
	}
	for _, e := range entries {
		if _, listed := b.Files[e.Name()]; !listed && strings.HasPrefix(e.Name(), checkpointPrefix) {
			return nil, corrupt(dir, "%s is not in %s", e.Name(), ManifestName)
		}
	}
	var jsonName, binName string
	for name := range data {
		if strings.HasSuffix(name, checkpoint.JsonNameSuffix) {
			jsonName = name
			binName = strings.TrimSuffix(name, checkpoint.JsonNameSuffix) + checkpoint.BinDataSuffix
		}
	}
	if _, ok := data[binName]; jsonName == "" || !ok || len(data) != 2 {
		return nil, corrupt(dir, "%s lists %d files, want one checkpoint (.json and .bin)", ManifestName, len(data))
	}

	store := model.NewStore()
	if _, err := checkpoint.Build(store).FromEmbed(string(data[jsonName]), data[binName]).Immediate().Done(); err != nil {
		return nil, corrupt(dir, "%s: %v", jsonName, err)
	}
	if err := json.Unmarshal(b.Meta, meta); err != nil {
		return nil, corrupt(dir, "%s: metadata: %v", ManifestName, err)
	}
	return store, nil
}

func corrupt(dir, format string, args ...any) error {
	return &CorruptError{Dir: dir, Problem: fmt.Sprintf(format, args...)}
}

// CorruptError is a Load error for a folder that holds no intact saved model: Problem says
// what is wrong with Dir. Its fix (delete the folder and retrain) fits a cache entry, which
// the caller can retrain; a caller that loads a folder the user named gives its own.
type CorruptError struct{ Dir, Problem string }

func (e *CorruptError) Error() string {
	return fmt.Sprintf("loading model from %s: %v: %s; fix: delete the folder and retrain", e.Dir, ErrCorrupt, e.Problem)
}

// Is makes a CorruptError match ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }
