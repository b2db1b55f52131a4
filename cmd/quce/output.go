package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/quce-go/quce/internal/atomicfile"
)

// Output files are checked before any work starts (a folder where a file is wanted, a
// folder that cannot be written, an existing file without -force) and written atomically
// with mode atomicfile.Mode (0644: results are meant to be shared).

// checkOutput checks that the file path (given with flagName) can be written: it is not a
// folder or a special file, it does not exist unless -force was given, and its folder
// exists or can be created and is writable. "" means no file.
func (c *common) checkOutput(flagName, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s %s is a folder; fix: name a file, e.g. %s", flagName, path, filepath.Join(path, "quce."+strings.TrimPrefix(flagName, "-")))
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%s %s is not a regular file; fix: name a file in a folder", flagName, path)
	case err == nil && !c.force:
		return fmt.Errorf("%s already exists; fix: choose another name or pass -force to overwrite it", path)
	}
	return writableFolder(flagName, path, filepath.Dir(path))
}

// checkOutputDir checks that the folder dir (given with flagName) is a folder, or can be
// created, and is writable. "" means no folder.
func (c *common) checkOutputDir(flagName, dir string) error {
	if dir == "" {
		return nil
	}
	return writableFolder(flagName, dir, dir)
}

// writableFolder checks that dir, or the nearest of its parents that exists, is a folder
// this process can create files in (by creating and removing one: permissions alone do not
// tell, e.g. on a read-only mount or for root).
func writableFolder(flagName, arg, dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err == nil {
			switch {
			case !st.IsDir() && d == arg:
				return fmt.Errorf("%s %s is a file, not a folder; fix: name a folder (it is created if needed)", flagName, arg)
			case !st.IsDir():
				return fmt.Errorf("%s %s: %s is a file, not a folder; fix: choose a path inside a folder", flagName, arg, d)
			}
			f, err := os.CreateTemp(d, ".quce-write-check-*")
			if err != nil {
				return fmt.Errorf("%s %s: cannot write in the folder %s (%v); fix: choose a folder you can write to, or change its permissions", flagName, arg, d, unwrapPath(err))
			}
			f.Close()
			os.Remove(f.Name())
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return fmt.Errorf("%s %s: %v; fix: choose a path in a folder you can read and write", flagName, arg, err)
		}
		if parent := filepath.Dir(d); parent == d {
			return fmt.Errorf("%s %s: no folder of the path exists; fix: choose a path in an existing folder", flagName, arg)
		}
	}
}

// isNotDir reports an error of a path whose parent is a file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// distinctOutputs refuses two flags naming the same file.
func distinctOutputs(flags map[string]string) error {
	seen := map[string]string{}
	for _, name := range []string{"-json", "-csv"} {
		p := flags[name]
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = filepath.Clean(p)
		}
		if other, ok := seen[abs]; ok {
			return fmt.Errorf("%s and %s both name %s; fix: give each output its own file", other, name, p)
		}
		seen[abs] = name
	}
	return nil
}

// output is a file to write once everything is computed.
type output struct {
	path string
	data []byte
}

// writeOutputs writes the files atomically, in order; on an error the files already
// written are complete, and no partial file is left.
func writeOutputs(outs []output) error {
	for _, o := range outs {
		if err := writeOutput(o.path, o.data); err != nil {
			return err
		}
	}
	return nil
}

// writeOutput writes a file atomically (no partial file is ever left behind).
func writeOutput(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

// marshalJSON indents v as JSON with each object member and each array of objects or
// arrays on its own line, but an array of numbers or strings on one line, so that vectors
// and paths stay readable and small.
func marshalJSON(v any) ([]byte, error) {
	src, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	depth := 0
	newline := func() {
		out.WriteByte('\n')
		for range depth {
			out.WriteByte(' ')
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			out.Write(src[i : j+1])
			i = j
		case '{', '[':
			if end, ok := flatArray(src, i); ok {
				for k := i; k <= end; k++ {
					if src[k] == '"' {
						j := stringEnd(src, k)
						out.Write(src[k : j+1])
						k = j
						continue
					}
					out.WriteByte(src[k])
					if src[k] == ',' {
						out.WriteByte(' ')
					}
				}
				i = end
				continue
			}
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out.Write(src[i : i+2])
				i++
				continue
			}
			out.WriteByte(c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out.WriteByte(c)
		case ',':
			out.WriteByte(c)
			newline()
		case ':':
			out.WriteString(": ")
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// stringEnd is the index of the quote closing the JSON string that starts at src[i].
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(src) - 1
}

// flatArray reports whether src[i] opens an array holding no object or array, and where
// it ends.
func flatArray(src []byte, i int) (int, bool) {
	if src[i] != '[' {
		return 0, false
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j)
		case '[', '{':
			return 0, false
		case ']':
			return j, true
		}
	}
	return 0, false
}
