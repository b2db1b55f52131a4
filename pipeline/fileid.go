package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// FileID names a file by its path and the SHA-256 of its bytes, "path sha256:…", as
// Options.ModelID and Options.ModelScalerID name a user's model and scaler: the outputs then
// say which bytes were explained, and another file at the same path is another model.
func FileID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return path + " sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
