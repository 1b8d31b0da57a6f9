package client

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/krender/krender/cluster/gc"
)

// managedOwners are the UIDs of the owner references gc.FieldManager
// applied, as the object's managedFields record them
// (`f:metadata` > `f:ownerReferences` > `k:{"uid":"..."}`).
func managedOwners(mf []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range mf {
		if e.Manager != gc.FieldManager || e.Operation != metav1.ManagedFieldsOperationApply || e.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Metadata struct {
				OwnerReferences map[string]json.RawMessage `json:"f:ownerReferences"`
			} `json:"f:metadata"`
		}
		if json.Unmarshal(e.FieldsV1.Raw, &fields) != nil {
			continue
		}
		for k := range fields.Metadata.OwnerReferences {
			var key struct{ UID string }
			if rest, ok := strings.CutPrefix(k, "k:"); ok && json.Unmarshal([]byte(rest), &key) == nil && key.UID != "" {
				out = append(out, key.UID)
			}
		}
	}
	return out
}

// applyConfig is the server-side apply body for h's managed owner
// references: only the list gc owns, so the API server merges it with
// every other manager's by UID. The object's uid and resourceVersion make
// it conditional: a write since gc listed it is a conflict, planned again.
func applyConfig(h *gc.Hashed, owners []gc.Owner) ([]byte, error) {
	type ownerRef struct {
		gc.Owner
		Controller         bool `json:"controller"`
		BlockOwnerDeletion bool `json:"blockOwnerDeletion"`
	}
	md := map[string]any{"name": h.Name, "namespace": h.Namespace, "uid": h.UID, "resourceVersion": h.ResourceVersion}
	if len(owners) > 0 {
		refs := make([]ownerRef, len(owners))
		for i, o := range owners {
			refs[i] = ownerRef{Owner: o} // never the controller, never blocking a deletion
		}
		md["ownerReferences"] = refs
	}
	return json.Marshal(map[string]any{"apiVersion": "v1", "kind": h.Kind, "metadata": md})
}

// workers bounds the patches in flight.
const workers = 8

// maxAttempts bounds the plans of one object that others keep changing.
const maxAttempts = 5

// apply carries out the decisions that change something, updating each to
// what was done. An error stops handing out decisions; those in flight
// finish, uncancelled, and the error of the earliest decision in plan order
// is returned: every decision before it was handed out before any that
// failed, so the message names the same object whatever the timing.
func (c *Clients) apply(ctx context.Context, snap *gc.Snapshot, ds []gc.Decision) error {
	x := gc.NewIndex(snap)
	jobs := make(chan int)
	failed := make(chan struct{})
	var mu sync.Mutex
	errs := map[int]error{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				if err := c.carryOut(ctx, &ds[i], x); err != nil {
					mu.Lock()
					if len(errs) == 0 {
						close(failed)
					}
					errs[i] = err
					mu.Unlock()
				}
			}
		})
	}
	dispatch(ds, jobs, failed, ctx.Done())
	close(jobs)
	wg.Wait()
	if len(errs) == 0 {
		return nil
	}
	return errs[slices.Min(slices.Collect(maps.Keys(errs)))]
}

// dispatch hands out, in plan order, the decisions that change something,
// until one has failed or the run is cancelled.
func dispatch(ds []gc.Decision, jobs chan<- int, failed, done <-chan struct{}) {
	for i := range ds {
		if ds[i].Action != gc.Own && ds[i].Action != gc.Delete {
			continue
		}
		select {
		case jobs <- i:
		case <-failed:
			return
		case <-done:
			return
		}
	}
}

func (c *Clients) carryOut(ctx context.Context, d *gc.Decision, x *gc.Index) error {
	if ctx.Err() != nil {
		return nil
	}
	r := resourceOf(d.Object.Kind)
	ri := c.Metadata.Resource(r).Namespace(d.Object.Namespace)
	if d.Action == gc.Delete {
		uid, rv := types.UID(d.Object.UID), d.Object.ResourceVersion
		err := ri.Delete(ctx, d.Object.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
		switch {
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			d.Action, d.Reason = gc.Keep, "kept: changed since gc listed it; the next run decides"
			return nil
		case err != nil:
			return c.apiError("delete", r, d.Object.Namespace, err)
		}
		return nil
	}
	for attempt := 1; ; attempt++ {
		body, err := applyConfig(d.Object, d.Owners)
		if err != nil {
			return err
		}
		_, err = ri.Patch(ctx, d.Object.Name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: gc.FieldManager})
		if !apierrors.IsConflict(err) || attempt == maxAttempts {
			if err != nil {
				return c.apiError("patch", r, d.Object.Namespace, err)
			}
			return nil
		}
		// Written since listed: plan again from what it is now.
		m, err := ri.Get(ctx, d.Object.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			d.Action, d.Reason = gc.Keep, "deleted since gc listed it"
			return nil
		}
		if err != nil {
			return c.apiError("get", r, d.Object.Namespace, err)
		}
		nd := x.Decide(hashed(d.Object.Kind, m))
		if nd.Action != gc.Own {
			nd.Action = gc.Unchanged // another run set these owners already
			*d = nd
			return nil
		}
		*d = nd
	}
}

func resourceOf(kind string) schema.GroupVersionResource {
	for _, h := range hashedResources {
		if h.Kind == kind {
			return h.GroupVersionResource
		}
	}
	return hashedResources[0].GroupVersionResource
}
