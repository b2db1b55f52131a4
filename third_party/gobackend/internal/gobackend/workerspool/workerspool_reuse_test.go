package workerspool

// Tests of the waiting workers.

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
)

// goroutineID is the number runtime.Stack prints in its first line ("goroutine 7 [running]:").
func goroutineID() string {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	return string(bytes.Fields(line)[1])
}

// TestPoolReusesWorkers: tasks run on the goroutines of earlier tasks, never more at once than the pool allows, and Close lets the waiting workers exit.
func TestPoolReusesWorkers(t *testing.T) {
	for _, tc := range []struct {
		parallelism, tasks, maxGoroutines int
	}{
		{parallelism: 1, tasks: 50, maxGoroutines: 1},
		{parallelism: 2, tasks: 200, maxGoroutines: 2}, // New's handoff holds 2·GOMAXPROCS ≥ 2
	} {
		before := runtime.NumGoroutine()
		pool := New()
		pool.SetMaxParallelism(tc.parallelism)
		var (
			mu                      sync.Mutex
			seen                    = map[string]bool{}
			running, most, ranTasks int
			done                    sync.WaitGroup
		)
		for range tc.tasks {
			done.Add(1)
			pool.WaitToStart(func() {
				defer done.Done()
				mu.Lock()
				running++
				most = max(most, running)
				seen[goroutineID()] = true
				mu.Unlock()
				runtime.Gosched()
				mu.Lock()
				running--
				ranTasks++
				mu.Unlock()
			})
		}
		done.Wait()
		if got := ranTasks; got != tc.tasks {
			t.Errorf("parallelism %d: %d tasks ran, want %d", tc.parallelism, got, tc.tasks)
		}
		if most > tc.parallelism {
			t.Errorf("parallelism %d: %d tasks ran at once", tc.parallelism, most)
		}
		if len(seen) > tc.maxGoroutines {
			t.Errorf("parallelism %d: %d tasks ran on %d goroutines, want at most %d",
				tc.parallelism, tc.tasks, len(seen), tc.maxGoroutines)
		}
		pool.Close()
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("parallelism %d: %d goroutines after Close, %d before the pool", tc.parallelism, n, before)
		}
		// A closed pool still runs tasks.
		done.Add(1)
		pool.WaitToStart(func() { done.Done() })
		done.Wait()
	}
}
