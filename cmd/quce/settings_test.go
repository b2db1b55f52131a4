package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// commands are the commands of run, each with its own flags.
var commands = []string{"explain", "summary", "eval", "bench", "merge"}

// commandFlags are the flags of every command, by name, as each command's help lists them.
func commandFlags(t *testing.T) map[string]bool {
	t.Helper()
	flags := map[string]bool{}
	listed := regexp.MustCompile(`(?m)^  -([\w-]+)`)
	for _, cmd := range commands {
		var stderr bytes.Buffer
		if err := run(context.Background(), []string{cmd, "-h"}, &bytes.Buffer{}, &stderr); !errors.Is(err, errUsage) && !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("quce %s -h: %v; want the usage", cmd, err)
		}
		found := listed.FindAllStringSubmatch(stderr.String(), -1)
		if len(found) == 0 {
			t.Fatalf("quce %s -h lists no flags:\n%s", cmd, stderr.String())
		}
		for _, m := range found {
			flags[m[1]] = true
		}
	}
	return flags
}

// Every setting in the table is set by a flag of some command, and no two settings share
// a Go name once their packages are left out (a message may leave them out).
func TestSettingFlagsAreFlags(t *testing.T) {
	flags := commandFlags(t)
	byName := map[string]string{}
	for name, f := range settingFlags {
		if !flags[f.flag] {
			t.Errorf("%s maps to -%s, which is not a flag of any command", name, f.flag)
		}
		if other, dup := byName[unqualified(name)]; dup {
			t.Errorf("%s and %s are both %q without their packages", name, other, unqualified(name))
		}
		byName[unqualified(name)] = name
	}
}

// flagNames names each setting by its flag, qualified by its package or not, and leaves
// alone what only looks like one.
func TestFlagNames(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"quce: Config.LearningRate = 0 is not allowed", "quce: -lr = 0 is not allowed"},
		{"fix: a smaller learning rate (quce.Config.LearningRate), such as 0.01", "fix: a smaller learning rate (-lr), such as 0.01"},
		{"Config.PlausibilityQuantile and Config.Plausibility", "-plausibility-quantile and -plausibility-quantile"},
		{"or smaller λ weights (Config.Lambda1, Lambda2 and Lambda3)", "or smaller λ weights (-lambdas)"},
		{"declare it with LoadOptions.Types a=categorical, or data.LoadOptions.Ignore a", "declare it with -types a=categorical, or -ignore a"},
		{"pass a CSV file with data.Load, or one of wbc", "pass a CSV file with -data, or one of wbc"},
		{`a cache folder (Options.CacheDir DIR), or no cache (Options.CacheDir "")`, "a cache folder (-cache DIR), or no cache (-no-cache)"},
		{"NewGrouping's names names the bins of NewGrouping's edges", "-bin-names names the bins of -bins"},
		{"population.Options.Bootstrap 50: too few", "-bootstrap 50: too few"},
		{"Constraints.Bounds age=1:2,Constraints.Frozen", "-bounds age=1:2,-frozen"},
		// Not quce's settings: another package's Config, a longer name, a name inside a word.
		{"vae.Config.LearningRate and classifier.Config.K", "vae.Config.LearningRate and classifier.Config.K"},
		{"Config.KeepAll, Config.Stepsize, MyConfig.K", "Config.KeepAll, Config.Stepsize, MyConfig.K"},
		{"Explainer.WithBound (pipeline: Setup.WithPlausibility)", "Explainer.WithBound (pipeline: Setup.WithPlausibility)"},
	} {
		if got := flagNames(tc.msg); got != tc.want {
			t.Errorf("flagNames(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// libraryPackages are the packages a Go program calls, whose messages name the settings in
// Go terms.
var libraryPackages = []string{"quce", "data", "population", "pipeline", "eval", "report", "gonb_ext",
	"vae", "classifier", "onnxmodel", "gomlxmodel", "backend", "plots", "backprop"}

// flagsAllowed are the string literals of the library that name a flag of the command for a
// reason, by file and literal, with the reason.
var flagsAllowed = map[string]string{
	// Constraints.String formats the constraints as the flags that set them, for the
	// outputs' record of a run.
	`quce/columns.go: "-frozen"`:   "Constraints.String writes the flags",
	`quce/columns.go: "-increase"`: "Constraints.String writes the flags",
	`quce/columns.go: "-decrease"`: "Constraints.String writes the flags",
	`quce/columns.go: "-bounds "`:  "Constraints.String writes the flags",
	// explain's text report (report.WriteText), the output of quce explain, byte for byte.
	`report/text.go: " (%d before -sparse reset %d)"`: "the text of quce explain's report",
}

// No string of the library names a flag of the command, besides flagsAllowed: a Go
// program sets fields, which the library's messages name (the command names them by their
// flags, settingFlags).
func TestLibraryNamesNoFlags(t *testing.T) {
	flags := commandFlags(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for f := range flags {
			if !yield(regexp.QuoteMeta(f)) {
				return
			}
		}
	})
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	flagWord := regexp.MustCompile(`(?:^|[^\w-])-(` + strings.Join(names, "|") + `)(?:[^\w-]|$)`)
	used := map[string]bool{}
	scanned := 0
	for _, pkg := range libraryPackages {
		files, err := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no Go files (%v)", pkg, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			scanned++
			rel := pkg + "/" + filepath.Base(file)
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("%s: %s: %v", rel, lit.Value, err)
				}
				m := flagWord.FindStringSubmatch(s)
				if m == nil {
					return true
				}
				key := rel + ": " + strconv.Quote(s)
				if _, ok := flagsAllowed[key]; ok {
					used[key] = true
					return true
				}
				t.Errorf("%s names the flag -%s in %s; name the setting in Go terms (and its flag in settingFlags)", rel, m[1], lit.Value)
				return true
			})
		}
	}
	if scanned < 50 {
		t.Fatalf("scanned %d files; want the library's", scanned)
	}
	for key := range flagsAllowed {
		if !used[key] {
			t.Errorf("flagsAllowed holds %s, which the library no longer has", key)
		}
	}
}
