// Package e2e holds krender's end-to-end tests. They apply rendered
// manifests to a real kube-apiserver and so sit behind the e2e build tag:
//
//	go test -tags e2e -count=1 ./e2e/...
//
// The first run builds etcd, kube-apiserver and kube-controller-manager (see
// hack/kube-apiserver.sh), which takes several minutes; later runs start
// them in seconds. To skip
// even that while iterating, start one with `hack/kube-apiserver.sh up` and
// set KRENDER_E2E_KUBECONFIG to the kubeconfig it prints.
package e2e
