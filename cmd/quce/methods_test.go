package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/quce-go/quce/eval"
)

// quce eval's -methods: its default is eval's default set and its usage lists every method.
func TestEvalMethodsFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	runEval(context.Background(), []string{"-h"}, &stdout, &stderr)
	help := stderr.String()
	want := `(default "` + eval.JoinMethods(eval.DefaultMethods(), ",") + `")`
	_, line, found := strings.Cut(help, "-methods")
	line, _, _ = strings.Cut(line, "\n  -")
	if !found {
		t.Fatalf("quce eval -h has no -methods:\n%s", help)
	}
	if !strings.Contains(line, want) {
		t.Errorf("quce eval -h says of -methods %q; want the default %s", line, want)
	}
	for _, m := range eval.AllMethods() {
		if !strings.Contains(line, string(m)) {
			t.Errorf("quce eval -h does not list %s under -methods: %q", m, line)
		}
	}
}
