package diff

// Result is what `krender diff` found: one Change per object that differs,
// in profile, tenant and head order, and a summary. Its JSON form is
// documented in docs/diff.md and kept stable.
type Result struct {
	// Base names the base: the revision or the directory.
	Base    string   `json:"base"`
	Changes []Change `json:"changes"`
	Summary Summary  `json:"summary"`
}

// The values of Change.Change, Change.Rollout and Change.Apply.
const (
	Added    = "added"
	Removed  = "removed"
	Modified = "modified"

	Rolls    = "rolls"
	OnDelete = "on-delete"
	NextRun  = "next-run"
	None     = "none"

	OK      = "ok"
	Refused = "refused"
)

// Change is one object that differs between the base and the head.
type Change struct {
	Profile string `json:"profile"`
	// Tenant is "" when the profile has none.
	Tenant    string `json:"tenant"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	// Name is the name before the hash for a hashed ConfigMap or Secret.
	Name string `json:"name"`
	// Change is added, removed or modified.
	Change string `json:"change"`
	// Rollout is what a workload's pods do: rolls, on-delete, next-run or
	// none; "" for other objects and for workloads added or removed.
	Rollout string `json:"rollout,omitempty"`
	// Apply is ok or refused (`kubectl apply` of the head over the base).
	Apply   string   `json:"apply"`
	Reasons []string `json:"reasons"`
	// Diff is the object's unified diff, base to head, with every Secret's
	// values redacted.
	Diff string `json:"-"`
}

// Verdict is the one word a reviewer reads first: refused, then a
// workload's rollout, then added or removed, else none.
func (c Change) Verdict() string {
	switch {
	case c.Apply == Refused:
		return Refused
	case c.Change != Modified:
		return c.Change
	case c.Rollout != "":
		return c.Rollout
	}
	return None
}

// Summary counts the changes.
type Summary struct {
	// Profiles and Tenants are those compared (a profile without tenants
	// counts as one).
	Profiles int `json:"profiles"`
	Tenants  int `json:"tenants"`
	Changes  int `json:"changes"`
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Modified int `json:"modified"`
	// Rolls, OnDelete and NextRun count workloads by rollout; Refused the
	// applies the API server refuses.
	Rolls    int `json:"rolls"`
	OnDelete int `json:"onDelete"`
	NextRun  int `json:"nextRun"`
	Refused  int `json:"refused"`
	// RollsTenants and RollsProfiles are where workloads roll.
	RollsTenants  int `json:"rollsTenants"`
	RollsProfiles int `json:"rollsProfiles"`
}

func (r *Result) summarize() {
	s := &r.Summary
	tenants, profiles := map[[2]string]bool{}, map[string]bool{}
	for _, c := range r.Changes {
		s.Changes++
		switch c.Change {
		case Added:
			s.Added++
		case Removed:
			s.Removed++
		default:
			s.Modified++
		}
		if c.Apply == Refused {
			s.Refused++
			continue
		}
		switch c.Rollout {
		case Rolls:
			s.Rolls++
			tenants[[2]string{c.Profile, c.Tenant}] = true
			profiles[c.Profile] = true
		case OnDelete:
			s.OnDelete++
		case NextRun:
			s.NextRun++
		}
	}
	s.RollsTenants, s.RollsProfiles = len(tenants), len(profiles)
	if r.Changes == nil {
		r.Changes = []Change{}
	}
}
