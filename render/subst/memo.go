package subst

import (
	"sync"
	"sync/atomic"

	"github.com/krender/krender/model/manifest"
)

// memos are what substitution asks of every value it writes (its tag, and
// whether it reads as a string), and of every script (the names it
// assigns): pure functions of a string, and a fleet asks them of the same
// few strings thousands of times, so each is worked out once per run.
type memos struct {
	plainTag    memo[string]
	plainString memo[bool]
	assignedIn  memo[map[string]bool] // its maps are only read
}

func newMemos() *memos {
	return &memos{
		plainTag:    memo[string]{f: manifest.PlainTag},
		plainString: memo[bool]{f: readAsString},
		assignedIn:  memo[map[string]bool]{f: assignedNames},
	}
}

// memoLimit bounds a memo, so that a long-lived process (or a fleet with
// unique values everywhere) does not grow it without end.
const memoLimit = 1 << 16

// memo remembers a pure function of a string; safe for concurrent use.
type memo[V any] struct {
	f    func(string) V
	m    sync.Map
	size atomic.Int64
}

func (c *memo[V]) get(k string) V {
	if v, ok := c.m.Load(k); ok {
		return v.(V)
	}
	v := c.f(k)
	if c.size.Load() < memoLimit {
		if _, loaded := c.m.LoadOrStore(k, v); !loaded {
			c.size.Add(1)
		}
	}
	return v
}
