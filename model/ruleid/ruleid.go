// Package ruleid declares the id of every rule `krender check` reports: its
// own checks' and the render stages' notes (filepos.Note.Rule), which
// check.disable and krender.io/ignore name. It imports nothing of krender,
// so the stages that note a rule, the rule table (lint/rule) that describes
// it and the actions that print it all name one declaration, and the table
// links no stage to read an id.
package ruleid

// The checks of the linter (lint/check).
const (
	// UnresolvedVar is an undefined reference. Whatever silences it for
	// check (the profile's check.disable, an object's krender.io/ignore)
	// also lets render leave those references as written, so that one
	// command never passes what the other refuses (render/subst).
	UnresolvedVar      = "unresolved-var"
	RuntimeVars        = "runtime-vars"
	VarDefault         = "var-default"
	UnknownField       = "unknown-field"
	CRDSchema          = "crd-schema"
	TemplateField      = "template-field"
	CRDMissing         = "crd-missing"
	APIRemoved         = "api-removed"
	APIDeprecated      = "api-deprecated"
	SubPathConfigMap   = "subpath-configmap"
	EtcHostsWrite      = "etc-hosts-write"
	RuntimeVarShadowed = "runtime-var-shadowed"
	InotifyReload      = "inotify-reload"
	HostsRaceFree      = "hosts-race-free"
	DuplicateObject    = "duplicate-object"
)

// The render stages' notes: render prints them, check counts them.
const (
	// OldNameText, RefNotRendered, HashKeepsName and HashNotApplicable are
	// render/contenthash's notes.
	OldNameText       = "old-name-text"
	RefNotRendered    = "ref-not-rendered"
	HashKeepsName     = "hash-keeps-name"
	HashNotApplicable = "hash-not-applicable"
	// NamespaceUnknownScope is a custom kind whose scope nothing tells, so
	// that it gets no namespace (render/namespace).
	NamespaceUnknownScope = "namespace-unknown-scope"
	// IstioHoldAdded is the note that krender set
	// holdApplicationUntilProxyStarts (render/istio).
	IstioHoldAdded = "istio-hold-added"
	// InjectUnused is an inject entry that changed nothing: it reached no
	// object, or each object it reached already held what its fragment
	// gives. One id for both, as docs/inject.md promises, so that
	// check.disable silences every entry that changes nothing
	// (render/inject).
	InjectUnused = "inject-unused"
	// SplitTarget, SplitClaims and SplitReplicasFloor are render/zones'
	// notes.
	SplitTarget        = "split-target"
	SplitClaims        = "split-claims"
	SplitReplicasFloor = "split-replicas-floor"
	// UnusedVar is a profile variable no template references:
	// `LOG_LEVLE: debug` beside a base's `LOG_LEVEL: info` ships `info`
	// (render/subst).
	UnusedVar = "unused-var"
	// InvalidName is a name or namespace that substitution made and the
	// API server refuses: render refuses it, check reports it
	// (render/subst).
	InvalidName = "invalid-name"
	// SecretOutsideData is a secret value found outside a Secret's data
	// (render/redact).
	SecretOutsideData = "secret-outside-data"
)
