package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/krender/krender/cluster/gc"
)

// fakeAPI is an API server in memory that counts requests: lists page by
// page (limit, continue), label selection by key, server-side apply of
// owner references as one field manager's, preconditioned deletes. It
// stands in for a cluster where counting matters (a real server's
// numbers would be the same, its time not).
type fakeAPI struct {
	mu      sync.Mutex
	objs    map[string][]map[string]any // by "group/version/resource", one namespace
	rv      int
	lists   atomic.Int64
	patches atomic.Int64
	deletes atomic.Int64
	gets    atomic.Int64
	other   atomic.Int64 // discovery
	// accepts are the Accept headers of every request about secrets.
	accepts []string
	// forbid answers 403 to this verb.
	forbid string
	index  map[string]int // "gvr|name" -> position; nil: to build
	// interfere, when set, writes to an object just before gc's first
	// patch of it, as another writer between gc's list and its write.
	interfere  func(md map[string]any)
	interfered map[string]bool
}

func newFakeAPI() *fakeAPI { return &fakeAPI{objs: map[string][]map[string]any{}} }

func (f *fakeAPI) add(gvr, kind string, o map[string]any) {
	f.rv++
	md := o["metadata"].(map[string]any)
	md["namespace"], md["resourceVersion"] = "shop", strconv.Itoa(f.rv)
	if _, ok := md["uid"]; !ok {
		md["uid"] = "uid-" + kind + "-" + md["name"].(string)
	}
	o["apiVersion"], o["kind"] = apiVersionOf(gvr), kind
	f.objs[gvr] = append(f.objs[gvr], o)
	f.index = nil
}

func apiVersionOf(gvr string) string {
	p := strings.Split(gvr, "/")
	if p[0] == "" {
		return p[1]
	}
	return p[0] + "/" + p[1]
}

func (f *fakeAPI) config(t testing.TB) *rest.Config {
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	return &rest.Config{Host: s.URL}
}

func (f *fakeAPI) clients(t testing.TB) *Clients {
	c, err := NewClients(f.config(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ServeHTTP parses /api/v1/namespaces/shop/R[/name] and
// /apis/G/V/namespaces/shop/R[/name].
func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if p[0] == "api" {
		p = append([]string{"api", ""}, p[1:]...)
	}
	if len(p) == 4 && r.Method == "GET" { // cluster-scoped (or every namespace's)
		if f.forbid == "list" {
			f.forbidden(w, "list", p[1], p[3])
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.lists.Add(1)
		f.list(w, r, p[1]+"/"+p[2]+"/"+p[3])
		return
	}
	if len(p) < 6 || p[3] != "namespaces" {
		f.other.Add(1)
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
		return
	}
	gvr := p[1] + "/" + p[2] + "/" + p[5]
	if p[5] == "secrets" {
		f.mu.Lock()
		f.accepts = append(f.accepts, r.Header.Get("Accept"))
		f.mu.Unlock()
	}
	verb := map[string]string{"GET": "list", "PATCH": "patch", "DELETE": "delete"}[r.Method]
	if verb == "list" && len(p) > 6 {
		verb = "get"
	}
	if verb == f.forbid {
		f.forbidden(w, verb, p[1], p[5])
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch verb {
	case "list":
		f.lists.Add(1)
		f.list(w, r, gvr)
	case "patch":
		f.patches.Add(1)
		f.apply(w, r, gvr, p[6])
	case "delete":
		f.deletes.Add(1)
		f.delete(w, gvr, p[6])
	default:
		f.gets.Add(1)
		f.get(w, r, gvr, p[6])
	}
}

func (f *fakeAPI) forbidden(w http.ResponseWriter, verb, group, resource string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"%s is forbidden: User \"ci\" cannot %s resource \"%s\" in API group \"%s\" in the namespace \"shop\""}`, resource, verb, resource, group)
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request, gvr string) {
	q := r.URL.Query()
	var items []map[string]any
	for _, o := range f.objs[gvr] {
		if sel := q.Get("labelSelector"); sel != "" {
			if _, ok := o["metadata"].(map[string]any)["labels"].(map[string]any)[sel]; !ok {
				continue
			}
		}
		items = append(items, o)
	}
	start, _ := strconv.Atoi(q.Get("continue"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	end, cont := len(items), ""
	if limit > 0 && start+limit < len(items) {
		end, cont = start+limit, strconv.Itoa(start+limit)
	}
	page := items[start:end]
	list := map[string]any{"apiVersion": apiVersionOf(gvr), "kind": "List", "metadata": map[string]any{"continue": cont, "resourceVersion": strconv.Itoa(f.rv)}}
	if asMetadata(r) {
		list["apiVersion"], list["kind"] = "meta.k8s.io/v1", "PartialObjectMetadataList"
		metas := make([]map[string]any, len(page))
		for i, o := range page {
			metas[i] = map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": o["metadata"]}
		}
		list["items"] = metas
	} else {
		list["items"] = page
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(list)
}

func asMetadata(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Accept"), "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata") ||
		strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata")
}

func (f *fakeAPI) find(gvr, name string) (int, map[string]any) {
	if f.index == nil {
		f.index = map[string]int{}
		for g, l := range f.objs {
			for i, o := range l {
				f.index[g+"|"+o["metadata"].(map[string]any)["name"].(string)] = i
			}
		}
	}
	if i, ok := f.index[gvr+"|"+name]; ok {
		return i, f.objs[gvr][i]
	}
	return -1, nil
}

func status(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d}`, reason, code)
}

func (f *fakeAPI) writeMeta(w http.ResponseWriter, o map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": o["metadata"]})
}

func (f *fakeAPI) get(w http.ResponseWriter, r *http.Request, gvr, name string) {
	_, o := f.find(gvr, name)
	if o == nil {
		status(w, 404, "NotFound")
		return
	}
	f.writeMeta(w, o)
}

// apply is server-side apply of metadata.ownerReferences by one field
// manager: the entries it applied before are replaced by the new ones,
// everyone else's stay; uid and resourceVersion are preconditions.
func (f *fakeAPI) apply(w http.ResponseWriter, r *http.Request, gvr, name string) {
	var body struct {
		Metadata struct {
			UID, ResourceVersion string
			OwnerReferences      []map[string]any
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.URL.Query().Get("fieldManager") != gc.FieldManager {
		status(w, 400, "BadRequest")
		return
	}
	_, o := f.find(gvr, name)
	if o == nil {
		status(w, 404, "NotFound")
		return
	}
	md := o["metadata"].(map[string]any)
	if f.interfere != nil && !f.interfered[name] {
		if f.interfered == nil {
			f.interfered = map[string]bool{}
		}
		f.interfered[name] = true
		f.interfere(md)
		f.rv++
		md["resourceVersion"] = strconv.Itoa(f.rv)
	}
	if md["uid"] != body.Metadata.UID || md["resourceVersion"] != body.Metadata.ResourceVersion {
		status(w, 409, "Conflict")
		return
	}
	mine := managedOwnersOf(md)
	var owners []any
	if old, ok := md["ownerReferences"].([]any); ok {
		for _, x := range old {
			if !slices.Contains(mine, x.(map[string]any)["uid"].(string)) {
				owners = append(owners, x)
			}
		}
	}
	fields := map[string]any{}
	for _, x := range body.Metadata.OwnerReferences {
		owners = append(owners, x)
		fields[`k:{"uid":"`+x["uid"].(string)+`"}`] = map[string]any{}
	}
	md["ownerReferences"] = owners
	md["managedFields"] = []any{map[string]any{"manager": gc.FieldManager, "operation": "Apply", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:ownerReferences": fields}}}}
	f.rv++
	md["resourceVersion"] = strconv.Itoa(f.rv)
	f.writeMeta(w, o)
}

func managedOwnersOf(md map[string]any) []string {
	b, _ := json.Marshal(md)
	var m struct {
		ManagedFields []struct {
			Manager   string
			Operation string
			FieldsV1  json.RawMessage
		}
	}
	json.Unmarshal(b, &m)
	var out []string
	for _, e := range m.ManagedFields {
		var fields struct {
			Metadata struct {
				OwnerReferences map[string]any `json:"f:ownerReferences"`
			} `json:"f:metadata"`
		}
		json.Unmarshal(e.FieldsV1, &fields)
		for k := range fields.Metadata.OwnerReferences {
			var key struct{ UID string }
			json.Unmarshal([]byte(strings.TrimPrefix(k, "k:")), &key)
			out = append(out, key.UID)
		}
	}
	return out
}

func (f *fakeAPI) delete(w http.ResponseWriter, gvr, name string) {
	i, o := f.find(gvr, name)
	if o == nil {
		status(w, 404, "NotFound")
		return
	}
	f.objs[gvr] = slices.Delete(f.objs[gvr], i, i+1)
	f.index = nil
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
}
