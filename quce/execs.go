package quce

import (
	"sync"

	"github.com/gomlx/gomlx/core/graph"
)

// execsKept is how many compiled graphs an explainer keeps when no call is using them. A
// compiled step graph takes about half a megabyte on the pure-Go backend.
const execsKept = 32

// execs holds an explainer's compiled graphs, one graph.Exec per kind of graph and batch
// size. A graph.Exec compiles once per input shape and refuses a 33rd shape, but an
// explainer lives as long as a notebook session, which asks for as many batch sizes as its
// user does, and a walk's batch shrinks as its rows stop (see optimise). So every shape
// gets an Exec of its own, and beyond execsKept the least recently used are freed as soon
// as no call holds them.
type execs struct {
	mu      sync.Mutex
	entries map[execKey]*execEntry
	clock   uint64 // ticks at every get, for least recently used
	// ran holds every program (*graph.Exec) compiled so far, this cache's and the
	// explainer's others (programs.compileOnce); a freed one leaves it.
	ran sync.Map
}

// execKey names one compiled graph: a step graph of some kind, or the VAE's points graph
// (points set), for a batch of rows.
type execKey struct {
	kind   execKind
	points bool
	rows   int
	loop   loopKey   // a loop program (see loopGraph), when its rows are set
	replay replayKey // a replay program (see replayGraph), when its rows are set
}

type execEntry struct {
	ex      *graph.Exec
	users   int    // calls holding it
	used    uint64 // clock at the last get
	dropped bool   // no longer in entries: freed when its last user releases it
}

// get returns the Exec for key, built by build on first use, and the function that
// releases it; the caller calls release when it no longer executes it.
func (c *execs) get(key execKey, build func() (*graph.Exec, error)) (ex *graph.Exec, release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[execKey]*execEntry{}
	}
	c.clock++
	en, ok := c.entries[key]
	if !ok {
		ex, err := build()
		if err != nil {
			return nil, nil, err
		}
		// One shape per Exec (its cache would refuse others only past 32): the sizes are
		// this cache's to bound.
		en = &execEntry{ex: ex.SetMaxCache(1)}
		c.entries[key] = en
	}
	en.users++
	en.used = c.clock
	c.evict()
	return en.ex, func() { c.release(en) }, nil
}

func (c *execs) release(en *execEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	en.users--
	if en.dropped && en.users == 0 {
		c.ran.Delete(en.ex)
		en.ex.Finalize()
		return
	}
	c.evict()
}

// evict frees the least recently used unused entries beyond execsKept.
func (c *execs) evict() {
	for len(c.entries) > execsKept {
		var oldest execKey
		var found *execEntry
		for k, en := range c.entries {
			if en.users == 0 && (found == nil || en.used < found.used) {
				oldest, found = k, en
			}
		}
		if found == nil {
			return // all in use: freed as they are released
		}
		delete(c.entries, oldest)
		c.ran.Delete(found.ex)
		found.ex.Finalize()
	}
}

// reset drops every entry (the graphs must be built anew); those in use are freed when
// released.
func (c *execs) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, en := range c.entries {
		delete(c.entries, k)
		if en.users == 0 {
			c.ran.Delete(en.ex)
			en.ex.Finalize()
		} else {
			en.dropped = true
		}
	}
}
