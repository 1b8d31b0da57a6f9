package lifecycle

// deprecationGuide lists every removed API by release, with what replaces it.
const deprecationGuide = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"

// manual holds APIs that real manifests still carry but whose Go types no
// library krender uses ships any more, so the generated data cannot cover
// them. The generator (TestTableMatchesLibrary) adds them to zz_table.go:
// after an edit here, regenerate it with -update.
// TestManualEntriesAbsentFromLibrary fails as soon as a library ships one of
// them: the entry is then deleted, and the library's data used.
var manual = []Status{
	// https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16:
	// not served from 1.16 on; policy/v1beta1 takes its place.
	{
		API:         API{"extensions/v1beta1", "PodSecurityPolicy"},
		Removed:     Version{Major: 1, Minor: 16},
		Replacement: API{"policy/v1beta1", "PodSecurityPolicy"},
		Source:      deprecationGuide + "#v1-16",
	},
	// https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25:
	// not served from 1.25 on, no successor API (Pod Security Admission or an
	// admission webhook instead); deprecated in 1.21:
	// https://kubernetes.io/blog/2021/04/06/podsecuritypolicy-deprecation-past-present-and-future/
	{
		API:        API{"policy/v1beta1", "PodSecurityPolicy"},
		Deprecated: Version{Major: 1, Minor: 21},
		Removed:    Version{Major: 1, Minor: 25},
		Advice:     "PodSecurityPolicy has no successor API: enforce Pod Security Admission with pod-security.kubernetes.io/* namespace labels (or an admission webhook) and delete this object",
		Source:     deprecationGuide + "#v1-25",
	},
	// https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22:
	// not served from 1.22 on; apiregistration.k8s.io/v1 takes its place.
	// Its types live in k8s.io/kube-aggregator, which krender does not use.
	{
		API:         API{"apiregistration.k8s.io/v1beta1", "APIService"},
		Removed:     Version{Major: 1, Minor: 22},
		Replacement: API{"apiregistration.k8s.io/v1", "APIService"},
		Source:      deprecationGuide + "#v1-22",
	},
}
