package main

import (
	"context"
	"fmt"
	"io"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("eval: not wired yet")
}
