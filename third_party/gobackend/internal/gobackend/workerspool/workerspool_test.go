package workerspool

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomlx/compute/support/testutil"
	"github.com/gomlx/compute/support/xsync"
)

func TestPool_Saturate(t *testing.T) {
	// Test saturation.
	pool := New()
	wantTasks := 5
	pool.SetMaxParallelism(wantTasks)

	var count atomic.Int32
	doneNewTasks := xsync.NewLatch()
	doneTest := xsync.NewLatch()

	go func() {
		pool.Saturate(func() {
			got := count.Add(1)
			runtime.Gosched()
			if int(got) == wantTasks {
				doneNewTasks.Trigger()
				return
			}
			doneNewTasks.Wait()
		})
		doneTest.Trigger()
	}()

	select {
	case <-doneTest.WaitChan():
		// Success
	case <-time.After(10 * time.Second): // a deadlock, not a slow machine (100 ms could be one)
		t.Fatal("Timeout before all tasks were executed.")
	}
	if int(count.Load()) != wantTasks {
		t.Fatalf("Expected %d tasks, got %d", wantTasks, count.Load())
	}

	// Test No Parallelism
	pool.SetMaxParallelism(0)
	count.Store(0)
	pool.Saturate(func() { count.Add(1) })
	if ok, diff := testutil.IsEqual(int32(1), count.Load()); !ok {
		t.Errorf("Pool with parallelism 0 result mismatch:\n%s", diff)
	}

	// Test Unlimited
	pool.SetMaxParallelism(-1)
	count.Store(0)
	var started atomic.Int32
	wantStarted := int32(min(2, runtime.GOMAXPROCS(0)))
	pool.Saturate(func() {
		started.Add(1)
		// Saturate stops starting tasks once one has finished, so the first to start waits
		// (up to a second, on a loaded machine) for a second one where there can be one: with
		// a yield alone it could finish before Saturate's loop looked again, and the test
		// failed now and then.
		for deadline := time.Now().Add(time.Second); started.Load() < wantStarted && time.Now().Before(deadline); {
			runtime.Gosched()
		}
		count.Add(1)
	})
	if runtime.GOMAXPROCS(0) > 1 && started.Load() <= 1 {
		t.Errorf("Expected more than 1 started task for unlimited parallelism, got %d", started.Load())
	}
	if count.Load() != started.Load() {
		t.Errorf("Expected count %d to match started %d", count.Load(), started.Load())
	}
}
