package action

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/krender/krender/render"
)

// Shard selects a 1/Count slice of a run's units so that Count CI jobs
// together render the fleet exactly once. The zero value selects everything.
//
// A unit belongs to shard (rank mod Count)+1, rank being its place in the
// profile's tenant order (after -t). Dealing round-robin keeps the shards
// balanced (sizes differ by at most one, which hashing names cannot promise)
// and depends on nothing but the profile, so every run and machine agrees.
type Shard struct {
	Index, Count int // 1 <= Index <= Count
}

// ParseShard reads `i/n`.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("want i/n with 1 <= i <= n, such as 2/4")
	}
	return Shard{Index: i, Count: n}, nil
}

func (sh Shard) String() string {
	if sh.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// Of keeps the units of this shard, in their order.
func (sh Shard) Of(units []render.Unit) []render.Unit {
	if sh.Count <= 1 {
		return units
	}
	out := make([]render.Unit, 0, len(units)/sh.Count+1)
	for k := sh.Index - 1; k < len(units); k += sh.Count {
		out = append(out, units[k])
	}
	return out
}
