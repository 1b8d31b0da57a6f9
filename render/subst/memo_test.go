package subst

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

func TestMemoComputesEachValueOnceAndStaysBounded(t *testing.T) {
	var calls atomic.Int64
	m := memo[int]{f: func(s string) int { calls.Add(1); return len(s) }}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if got := m.get("x" + strconv.Itoa(i%10)); got != 2 {
					t.Errorf("got %d", got)
				}
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n < 10 || n > 40 {
		t.Fatalf("f called %d times for 10 distinct values", n)
	}
	for i := range memoLimit + 100 {
		m.get(strconv.Itoa(i))
	}
	if n := m.size.Load(); n > memoLimit {
		t.Fatalf("memo holds %d values, limit %d", n, memoLimit)
	}
	before := calls.Load()
	m.get(strconv.Itoa(memoLimit + 50))
	if calls.Load() != before+1 {
		t.Fatal("a value past the limit was remembered")
	}
}
