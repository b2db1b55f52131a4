package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/quce-go/quce/internal/atomicfile"
)

// Output files are checked before any work starts (a folder where a file is wanted, a
// folder that cannot be written, an existing file without -force, two outputs that collide)
// and written all or nothing with atomicfile.Batch, with mode atomicfile.Mode (0644:
// results are meant to be shared). "-" names standard output, for -json and -csv.

// outputFile is a file a command writes, and the flag that named it.
type outputFile struct{ flag, path string }

// stdoutName is how an output to standard output is named: "-", or a path that is the
// file standard output already is (/dev/stdout), so that it is written to the stream
// rather than replaced.
func stdoutName(path string, stdout io.Writer) string {
	f, ok := stdout.(*os.File)
	if path == "" || path == "-" || !ok {
		return path
	}
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	if err1 == nil && err2 == nil && os.SameFile(a, b) {
		return "-"
	}
	return path
}

// checkOutputs checks, before any work, that the files, the -svg folder and the pictures in
// it can be written (see checkOutput and checkOutputDir), and that no two outputs collide:
// two flags naming one file (also through "./" or a symbolic link), a file that is the
// -svg folder or a folder above it, a file that a picture would overwrite, or standard
// output named twice. pictures are the -svg files, or nil before they are known.
func (c *common) checkOutputs(files []outputFile, svgDir string, pictures []string) error {
	var toStdout []string
	for _, o := range files {
		if o.path == "-" {
			toStdout = append(toStdout, o.flag)
		}
		if err := c.checkOutput(o.flag, o.path); err != nil {
			return err
		}
	}
	if len(toStdout) > 1 {
		return fmt.Errorf("%s both write to standard output; fix: send one of them to a file", strings.Join(toStdout, " and "))
	}
	if err := c.checkOutputDir("-svg", svgDir); err != nil {
		return err
	}
	for _, p := range pictures {
		if err := c.checkOutput("-svg", p); err != nil {
			return err
		}
	}
	all := slices.Clone(files)
	for _, p := range pictures {
		all = append(all, outputFile{"-svg", p})
	}
	folder := ""
	if svgDir != "" {
		var err error
		if folder, err = atomicfile.Canonical(svgDir); err != nil {
			return fmt.Errorf("-svg %s: %v", svgDir, err)
		}
	}
	seen := map[string]outputFile{}
	for _, o := range all {
		if o.path == "" || o.path == "-" {
			continue
		}
		t, err := atomicfile.Resolve(o.path)
		if err != nil || t.Kind == atomicfile.Direct {
			continue // a device or a pipe is written in place, so outputs to it cannot clobber each other
		}
		if first, ok := seen[t.Dest]; ok {
			if first.flag == o.flag {
				return fmt.Errorf("%s: two pictures would be written to %s; fix: give each its own file", o.flag, o.path)
			}
			fix := "give each output its own file"
			if o.flag == "-svg" {
				fix = fmt.Sprintf("give the %s file a name no picture has, or put it outside the -svg folder", first.flag)
			}
			return fmt.Errorf("%s %s and %s %s are the same file, which one would overwrite; fix: %s", first.flag, first.path, o.flag, o.path, fix)
		}
		seen[t.Dest] = o
		if folder != "" && o.flag != "-svg" && (t.Dest == folder || strings.HasPrefix(folder, t.Dest+string(filepath.Separator))) {
			return fmt.Errorf("%s %s is the -svg folder %s, or a folder above it; fix: give the %s file another name", o.flag, o.path, svgDir, o.flag)
		}
	}
	return nil
}

// checkOutput checks that the file path (given with flagName) can be written: it is not a
// folder or something that cannot be written safely (see atomicfile.Resolve), it does not
// exist unless -force was given (a device or a pipe, written in place, may), and its
// folder exists or can be created and is writable. "" means no file and "-" standard output.
func (c *common) checkOutput(flagName, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s is a folder; fix: name a file, e.g. %s", flagName, path, filepath.Join(path, "quce."+strings.TrimPrefix(flagName, "-")))
	}
	t, err := atomicfile.Resolve(path)
	switch {
	case err != nil && isNotDir(err):
		return writableFolder(flagName, path, filepath.Dir(path))
	case err != nil:
		return fmt.Errorf("%s %w", flagName, err)
	case t.Kind == atomicfile.Direct:
		return nil
	case t.Kind == atomicfile.Replace && !c.force:
		what := path
		if t.Link {
			what = fmt.Sprintf("%s (a link to %s)", path, t.Dest)
		}
		return fmt.Errorf("%s already exists; fix: choose another name or pass -force to overwrite it", what)
	}
	return writableFolder(flagName, path, filepath.Dir(t.Dest))
}

// checkOutputDir checks that the folder dir (given with flagName) is a folder, or can be
// created, and is writable. "" means no folder.
func (c *common) checkOutputDir(flagName, dir string) error {
	switch dir {
	case "":
		return nil
	case "-":
		return fmt.Errorf("%s -: the pictures are files in a folder, not a stream; fix: name a folder (it is created if needed)", flagName)
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

// output is a file to write once everything is computed; "-" is standard output.
type output struct {
	path string
	data []byte
}

// writeOutputs writes the outputs all or nothing (atomicfile.Batch): if one fails, a full
// disk say, no file of this run is left and the files it would have replaced are as they
// were, which the error says, with the fix. An output to "-" goes to stdout, after the files.
// staged are files written as they were computed (see streamCSV), written with the others.
func writeOutputs(stdout io.Writer, outs []output, staged ...*atomicfile.Staged) error {
	var b atomicfile.Batch
	var err error
	for _, s := range staged {
		err = errors.Join(err, b.AddStaged(s))
	}
	for _, o := range outs {
		if o.path == "-" {
			b.AddStream(stdout, o.data)
			continue
		}
		b.Add(o.path, o.data)
	}
	if err == nil {
		err = b.Commit()
	} else {
		for _, s := range staged {
			s.Abort() // the batch was not committed, so none of them is in place
		}
	}
	if err == nil {
		return nil
	}
	fix := "check that the outputs' folders can be written and have room, or write the outputs elsewhere"
	switch {
	case errors.Is(err, syscall.ENOSPC):
		fix = "free space on that disk, or write the outputs to another one"
	case errors.Is(err, syscall.EPIPE):
		fix = "let the command reading the output read it all"
	}
	return fmt.Errorf("%w; no output file of this run was left, and those -force would have replaced are as they were; fix: %s", err, fix)
}

// outputName is how the log names an output.
func outputName(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}
