// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

package gobackend

import (
	"runtime"
	"sync"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// oneProcessorBackend returns a backend made with one processor, so that every GetBuffer and
// PutBuffer of the test uses the same processor's stack.
func oneProcessorBackend(t *testing.T) *Backend {
	if raceEnabled {
		t.Skip("the race detector's builds keep no processor stacks")
	}
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	return newDefaultBackend()
}

// TestLocalBuffersSurviveGC: small buffers put back are taken again from the processor's
// stack, even after garbage collections (which empty sync.Pools).
func TestLocalBuffersSurviveGC(t *testing.T) {
	b := oneProcessorBackend(t)
	shape := shapes.Make(dtypes.Float32, 1, 30)
	put := map[*Buffer]bool{}
	var bufs []*Buffer
	for range 5 {
		buf, err := b.GetBuffer(shape)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, buf)
		put[buf] = true
	}
	for _, buf := range bufs {
		b.PutBuffer(buf)
	}
	runtime.GC()
	runtime.GC()
	for range 5 {
		buf, err := b.GetBuffer(shape)
		if err != nil {
			t.Fatal(err)
		}
		if !put[buf] {
			t.Fatalf("got a buffer that was not put back: the processor's stack lost it")
		}
		delete(put, buf)
	}
}

// TestLocalBuffersBounded: a processor's stack keeps buffers of at most localBufferMaxBytes,
// localBuffersMaxBytes in all; the rest go to the sync.Pools.
func TestLocalBuffersBounded(t *testing.T) {
	b := oneProcessorBackend(t)
	for _, shape := range []shapes.Shape{
		shapes.Make(dtypes.Float32, 256),   // 1 KB: kept until the stack is full
		shapes.Make(dtypes.Float32, 2048),  // 8 KB: never kept
		shapes.Make(dtypes.Float32, 1, 30), // 120 bytes
	} {
		var bufs []*Buffer
		for range 2 * localBuffersMaxBytes / 1024 {
			buf, err := b.GetBuffer(shape)
			if err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs, buf)
		}
		for _, buf := range bufs {
			b.PutBuffer(buf)
		}
	}
	l := &b.localBuffers[0]
	total := 0
	for idx, s := range l.stacks {
		for _, buf := range s {
			if n := len(buf.RawBytes); n > localBufferMaxBytes {
				t.Errorf("stack %d keeps a buffer of %d bytes, more than %d", idx, n, localBufferMaxBytes)
			}
			total += len(buf.RawBytes)
		}
	}
	if total != l.bytes || total > localBuffersMaxBytes || total < localBuffersMaxBytes-1024 {
		t.Errorf("the stacks keep %d bytes (counted %d), want at most %d and the stack full", total, l.bytes, localBuffersMaxBytes)
	}
}

// TestLocalBuffersConcurrent: goroutines getting, writing and putting back small buffers never
// hold the same buffer at once.
func TestLocalBuffersConcurrent(t *testing.T) {
	b := newDefaultBackend()
	shapesUsed := []shapes.Shape{shapes.Make(dtypes.Float32, 1, 30), shapes.Make(dtypes.Float32, 3, 64), shapes.Make(dtypes.Int32, 7)}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mark := byte(g + 1)
			for i := range 20000 {
				buf, err := b.GetBuffer(shapesUsed[i%len(shapesUsed)])
				if err != nil {
					errs <- err.Error()
					return
				}
				for j := range buf.RawBytes {
					buf.RawBytes[j] = mark
				}
				if i%7 == 0 {
					runtime.Gosched()
				}
				for _, v := range buf.RawBytes {
					if v != mark {
						errs <- "a buffer was written by another goroutine while held"
						return
					}
				}
				b.PutBuffer(buf)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
