// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

package gobackend

import (
	"runtime"
	_ "unsafe" // go:linkname
)

// Small buffers are kept, when freed, in a stack of the processor (the runtime's P) that
// freed them, and taken from it again by the next GetBuffer on that processor.
//
// A While loop of small operations gets and puts a buffer for almost every operation: a
// one-row search of a thousand steps of 200 operations, 150 000 times each an execution. In
// sync.Pool, each costs the pinning of the goroutine to its processor plus atomic operations
// on the pool's shared queue (only one buffer a pool is kept without them), and the two took
// a twelfth of that loop's time. A processor's own stack needs the pinning only: while pinned,
// no other goroutine runs on the processor, so no other GetBuffer or PutBuffer touches the
// stack.
//
// What the stacks keep is bounded: buffers of at most localBufferMaxBytes, at most
// localBuffersMaxBytes in all on a processor; anything else goes to the sync.Pools, which the
// garbage collector empties. The stacks are not used by the race detector's builds
// (raceEnabled), which cannot see the pinning.
const (
	localBufferMaxLog    = 12
	localBufferMaxBytes  = 1 << localBufferMaxLog
	localBuffersMaxBytes = 64 << 10
)

// numLocalBuckets are the bucket pool indices (bucketPoolIndex) of sizes up to
// localBufferMaxBytes: 0, 1, 2 and 2^p, 3·2^(p-1) up to 2^localBufferMaxLog.
const numLocalBuckets = 2*localBufferMaxLog + 2

// localBuffers are one processor's free small buffers, a stack per bucketed size.
type localBuffers struct {
	stacks [numLocalBuckets][]*Buffer
	bytes  int
	_      [64]byte // no false sharing with the next processor's
}

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// newLocalBuffers makes the stacks of the processors there are now; a processor added later
// (runtime.GOMAXPROCS) uses the sync.Pools, and so does every processor of a race detector's
// build, which gets no stacks.
func newLocalBuffers() []localBuffers {
	if raceEnabled {
		return nil
	}
	return make([]localBuffers, runtime.GOMAXPROCS(0))
}

// getLocalBuffer pops a buffer of the bucket idx from the current processor's stack, or
// returns nil.
func (b *Backend) getLocalBuffer(idx int) *Buffer {
	if idx >= numLocalBuckets {
		return nil
	}
	var buf *Buffer
	pid := procPin()
	if pid < len(b.localBuffers) {
		l := &b.localBuffers[pid]
		if s := l.stacks[idx]; len(s) > 0 {
			buf = s[len(s)-1]
			s[len(s)-1] = nil
			l.stacks[idx] = s[:len(s)-1]
			l.bytes -= len(buf.RawBytes)
		}
	}
	procUnpin()
	return buf
}

// putLocalBuffer pushes buf, of the bucket idx, on the current processor's stack, and
// reports whether it did.
func (b *Backend) putLocalBuffer(idx int, buf *Buffer) bool {
	if idx >= numLocalBuckets {
		return false
	}
	done := false
	pid := procPin()
	if pid < len(b.localBuffers) {
		l := &b.localBuffers[pid]
		if n := len(buf.RawBytes); l.bytes+n <= localBuffersMaxBytes {
			l.stacks[idx] = append(l.stacks[idx], buf)
			l.bytes += n
			done = true
		}
	}
	procUnpin()
	return done
}
