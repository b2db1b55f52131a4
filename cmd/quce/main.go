// Command quce explains a neural network's decisions with QUCE, from the command line.
//
//	quce explain [flags]   explain rows (-n, -rows) or new instances (-instances); print, write JSON, CSV, SVG
//	quce summary [flags]   recourse across many rows: per column, per row cost, per group with intervals and tests
//	quce eval [flags]      compare QUCE with its baselines on the paper's metrics
//	quce bench [flags]     time every phase and print JSON
//
// Rows are named by their line in their CSV file (the header is line 1), in the text, the
// JSON ("line"), the CSV and the SVG file names (line42-attribution.svg).
//
// With no -data flag it uses the embedded Wisconsin breast-cancer data. Trained models are
// cached (see -cache), so a second run loads them. Run "quce <command> -h" for the flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

func main() {
	pipeline.PaceGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, "quce: interrupted; no output files were written")
		os.Exit(130)
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
}

// errorLine is how the command reports err: after "quce: ", once. The library's own errors
// already start with it (quce.NewClassifier's, say, when they reach the command unwrapped),
// so it is not added twice; and where another package wraps one ("eval: QUCE on the train
// split: quce: this job needs …"), the package's name, which reads as the command's, is
// dropped.
//
// A search the device had no memory for is said with the flag that sizes it, -unit-rows.
func errorLine(err error) string {
	var dm *quce.DeviceMemoryError
	if errors.As(err, &dm) {
		return fmt.Sprintf("quce: the device ran out of memory running the search's %s program on %d rows, in units of %d rows (%v); fix: smaller units, -unit-rows %d (the same results, to float32 rounding)",
			dm.Program, dm.Rows, dm.UnitRows, dm.Err, dm.SmallerUnits())
	}
	msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "quce: "), ": quce: ", ": ")
	return "quce: " + msg
}

var errUsage = errors.New("usage")

const usage = `usage: quce <command> [flags]

commands:
  explain   explain instances with QUCE (prediction before/after, top features)
  summary   recourse across rows: which columns change, its cost, and differences between groups (-group-by)
  eval      QUCE against IG, AGI, Wachter and DiCE-random on the paper's metrics
  bench     time each phase (training, optimisation, attribution, uncertainty) as JSON
  merge     join the -json or -csv files of explain -shard i/N into one run's

Run "quce <command> -h" for its flags.
`

// run runs the command of args; its error names every setting by its flag, the library's
// errors naming them in Go terms (namedByFlags).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return namedByFlags(runCommand(ctx, args, stdout, stderr))
}

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "explain":
		return runExplain(ctx, args[1:], stdout, stderr)
	case "summary":
		return runSummary(ctx, args[1:], stdout, stderr)
	case "eval":
		return runEval(ctx, args[1:], stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "merge":
		return runMerge(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "quce: unknown command %q\n%s", args[0], usage)
	return errUsage
}
