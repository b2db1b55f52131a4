// Command interrupt trains the models into a cache folder, the way a notebook cell does,
// so a test can interrupt it (as GoNB interrupts a cell: SIGINT to the cell's program).
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/vae"
)

func main() {
	v := vae.DefaultConfig()
	// No epoch or step limit in reach, and no early stop: the VAE trains until it is
	// interrupted.
	v.MaxEpochs, v.MaxSteps, v.Patience = math.MaxInt32, math.MaxInt32, math.MaxInt32
	_, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: os.Args[1], VAE: v,
		Log: func(format string, args ...any) { fmt.Printf(format+"\n", args...) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
