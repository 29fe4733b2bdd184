// Package k8s checks the Kubernetes manifests and the image definition beside it against the
// Kubernetes API's own types (k8s.io/api), strictly: no cluster runs in CI, so this is what
// stands between a typo in a field name and a Job that a cluster rejects or, worse, accepts
// with the field silently dropped. It is a module of its own so that replay never links the
// Kubernetes types.
package k8s
