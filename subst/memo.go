package subst

import (
	"sync"
	"sync/atomic"

	"github.com/krender/krender/manifest"
)

// Substitution asks both of every value it writes; they depend on the value
// alone, and a fleet substitutes the same few values into thousands of
// scalars, so each is worked out once.
var (
	plainTag    = memo[string]{f: manifest.PlainTag}
	plainString = memo[bool]{f: readAsString}
	// assignedIn is assignedNames, asked of the same scripts in every tenant;
	// its maps are only read.
	assignedIn = memo[map[string]bool]{f: assignedNames}
)

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
