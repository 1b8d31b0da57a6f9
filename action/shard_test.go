package action

import (
	"fmt"
	"testing"

	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/render"
)

func tenantsOf(units []render.Unit) []string {
	var out []string
	for _, u := range units {
		out = append(out, u.Tenant)
	}
	return out
}

// The n shards of a run must together render every tenant exactly once,
// each in profile order, with sizes at most one apart.
func TestShardsPartitionTheFleet(t *testing.T) {
	for _, tenants := range []int{0, 1, 2, 7, 20} {
		for _, only := range [][]string{nil, {"tenant-0002", "tenant-0005", "tenant-0006"}} {
			if len(only) > 0 && tenants < 7 {
				continue
			}
			f := fleetgen.Fleet{Apps: 1, Tenants: tenants}
			all := tenantsOf(fleetEngine(t, f, Options{Tenants: only}).Units)
			for n := 1; n <= len(all)+2; n++ {
				seen := map[string]int{}
				smallest, largest := len(all), 0
				for i := 1; i <= n; i++ {
					e := fleetEngine(t, f, Options{Tenants: only, Shard: Shard{Index: i, Count: n}})
					got := tenantsOf(e.Units)
					smallest, largest = min(smallest, len(got)), max(largest, len(got))
					last := -1
					for _, name := range got {
						seen[name]++
						at := indexOf(all, name)
						if at <= last {
							t.Fatalf("%d tenants, shard %d/%d: %v is not in profile order", tenants, i, n, got)
						}
						last = at
					}
				}
				for _, name := range all {
					if seen[name] != 1 {
						t.Fatalf("%d tenants, %d shards: %s rendered %d times", tenants, n, name, seen[name])
					}
				}
				if len(seen) != len(all) {
					t.Fatalf("%d tenants, %d shards: rendered %d distinct tenants, want %d", tenants, n, len(seen), len(all))
				}
				if largest-smallest > 1 {
					t.Fatalf("%d tenants, %d shards: sizes from %d to %d", tenants, n, smallest, largest)
				}
			}
		}
	}
}

// A shard is a function of the profile alone: the same tenants every time.
func TestShardIsRoundRobinByProfileRank(t *testing.T) {
	f := fleetgen.Fleet{Apps: 1, Tenants: 10}
	got := fmt.Sprint(tenantsOf(fleetEngine(t, f, Options{Shard: Shard{Index: 2, Count: 3}}).Units))
	want := "[tenant-0002 tenant-0005 tenant-0008]"
	if got != want {
		t.Fatalf("shard 2/3 of 10 tenants: %s, want %s", got, want)
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "2/4": {2, 4}, "4/4": {4, 4}, "10/12": {10, 12}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("%v prints as %q, want %q", got, got.String(), in)
		}
	}
	for _, in := range []string{"", "1", "0/2", "3/2", "-1/2", "1/0", "a/b", "1/2/3", "1 /2", "1/"} {
		if _, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}
