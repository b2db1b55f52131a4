// Command interrupt trains the models into a cache folder, the way a notebook cell does,
// so a test can interrupt it (as GoNB interrupts a cell: SIGINT to the cell's program).
package main

import (
	"fmt"
	"os"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/vae"
)

func main() {
	v := vae.DefaultConfig()
	v.MaxEpochs, v.Patience = 100000, 100000 // long enough to be interrupted
	_, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: os.Args[1], VAE: v,
		Log: func(format string, args ...any) { fmt.Printf(format+"\n", args...) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
