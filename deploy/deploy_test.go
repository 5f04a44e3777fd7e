// Package deploy holds the tests of what ships the coderun MCP server:
// Containerfile and build-image.sh (the image), and kubernetes/ (the
// manifests), checked against the server itself (docs/deploy.md).
package deploy

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// coderunBin is the coderun binary TestMain builds from this repository.
var coderunBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "coderun-deploy-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	coderunBin = filepath.Join(dir, "coderun")
	build := exec.Command("go", "build", "-o", coderunBin, "../cmd/coderun")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ../cmd/coderun: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// serverOverhead is what a replica needs besides its runs' memory (their
// --memory each, --max-runs at once): the figure deployment.yaml's comment
// on resources states and docs/deploy.md explains.
const serverOverhead = 256 << 20

// shutdownWaits is what the server may wait after --shutdown-grace: up to
// 5 s for the runs it cancelled, then up to 5 s for connections to close
// (mcp.HTTPHandler.Shutdown, serveHTTP in cmd/coderun).
const shutdownWaits = 10

// mcpFlags returns the flags `coderun mcp --help` lists.
func mcpFlags(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command(coderunBin, "mcp", "--help").CombinedOutput()
	require.NoError(t, err, "%s", out)
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  --?([a-z][a-z0-9-]*)`).FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	require.Contains(t, flags, "http", "the help lists the flags:\n%s", out)
	return flags
}

// Every flag the image and the manifests give `coderun mcp` is one of its
// flags.
func TestFlagsExist(t *testing.T) {
	flags := mcpFlags(t)
	cf, m := loadContainerfile(t), loadManifests(t)
	require.Equal(t, []string{"/coderun", "mcp"}, cf.entrypoint[:2], "the image's ENTRYPOINT runs coderun mcp")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"Containerfile's ENTRYPOINT", cf.entrypoint[2:]},
		{"Containerfile's CMD", cf.cmd},
		{"deployment.yaml's args", m.server(t).Args},
	} {
		t.Run(c.name, func(t *testing.T) {
			names := flagNames(c.args)
			require.NotEmpty(t, names)
			for _, n := range names {
				require.True(t, flags[n], "--%s is not a flag of coderun mcp", n)
			}
		})
	}
}

// The server, started with the image's ENTRYPOINT and the Deployment's
// args (on loopback ports, with a token file and a cache directory of the
// test's), answers the probes' paths 200 without the token, serves the
// metrics on their own port without it, refuses MCP without it and
// accepts MCP with the token read from the file.
func TestManifestsServe(t *testing.T) {
	m, img := loadManifests(t), loadContainerfile(t)
	c := m.server(t)
	dir := t.TempDir()
	token := "deploy-test-token"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600))
	args := slices.Concat(img.entrypoint[1:], c.Args)
	for flag, value := range map[string]string{
		"http": "127.0.0.1:0", "metrics-addr": "127.0.0.1:0",
		"token-file": filepath.Join(dir, "token"), "cache-dir": filepath.Join(dir, "cache"),
	} {
		args = replaceFlag(t, args, flag, value)
	}
	srv := startServer(t, args)

	get := func(url string) int {
		resp, err := http.Get(url)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, get(srv.mcp+c.ReadinessProbe.HTTPGet.Path), "readiness probe")
	require.Equal(t, http.StatusOK, get(srv.mcp+c.LivenessProbe.HTTPGet.Path), "liveness probe")
	require.Equal(t, http.StatusOK, get(srv.metrics+m.deployment.Spec.Template.Metadata.Annotations["prometheus.io/path"]), "metrics")
	require.Equal(t, http.StatusUnauthorized, get(srv.mcp+"/mcp"), "MCP without the token")

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deploy-test","version":"0"}}}`
	req, err := http.NewRequest(http.MethodPost, srv.mcp+"/", strings.NewReader(initialize))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "MCP with the token: %s", body)
	require.Contains(t, string(body), `"serverInfo"`)
}

// replaceFlag returns args with the value of --flag replaced by value; the
// flag must be there, with its value as the next word.
func replaceFlag(t *testing.T, args []string, flag, value string) []string {
	t.Helper()
	i := slices.IndexFunc(args, func(a string) bool { return strings.TrimLeft(a, "-") == flag })
	require.True(t, i >= 0 && i+1 < len(args), "--%s VALUE is in %q", flag, args)
	out := slices.Clone(args)
	out[i+1] = value
	return out
}

// server is a running `coderun mcp`: the base URLs of its MCP and metrics
// listeners.
type server struct{ mcp, metrics string }

var servingAt = regexp.MustCompile(`serving (MCP over streamable HTTP|metrics) at (http://[^/\s]+)`)

// startServer starts coderun with args, reads both addresses it serves at
// from its standard error, and kills it at the end of the test.
func startServer(t *testing.T, args []string) server {
	t.Helper()
	cmd := exec.Command(coderunBin, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var logs strings.Builder
	found := make(chan [2]string, 2)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			logs.WriteString(lines.Text() + "\n")
			if m := servingAt.FindStringSubmatch(lines.Text()); m != nil {
				found <- [2]string{m[1], m[2]}
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var s server
	for s.mcp == "" || s.metrics == "" {
		select {
		case f := <-found:
			if f[0] == "metrics" {
				s.metrics = f[1]
			} else {
				s.mcp = f[1]
			}
		case <-exited:
			t.Fatalf("coderun %q exited before serving:\n%s", args, logs.String())
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("coderun %q printed no addresses in 30 s:\n%s", args, logs.String())
		}
	}
	return s
}

// The manifests agree with each other, with the Containerfile and with
// the server's flags.
func TestManifests(t *testing.T) {
	m, cf := loadManifests(t), loadContainerfile(t)
	c := m.server(t)
	for _, tc := range []struct {
		name  string
		check func(t *testing.T, m *manifests, c *container, cf *containerfile)
	}{
		{"every manifest is in the kustomization", checkKustomization},
		{"ports", checkPorts},
		{"probe paths", checkProbes},
		{"grace period", checkGrace},
		{"memory", checkMemory},
		{"token secret", checkSecret},
		{"selectors", checkSelectors},
		{"security", checkSecurity},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, m, c, cf) })
	}
}

func checkKustomization(t *testing.T, m *manifests, _ *container, _ *containerfile) {
	files, err := filepath.Glob("kubernetes/*.yaml")
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		if name := filepath.Base(f); name != "kustomization.yaml" {
			want = append(want, name)
		}
	}
	require.ElementsMatch(t, want, m.kustomization.Resources)
}

// containerPort returns the container's port named or numbered ref.
func containerPort(t *testing.T, c *container, ref portRef) int {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == string(ref) || strconv.Itoa(p.ContainerPort) == string(ref) {
			return p.ContainerPort
		}
	}
	t.Fatalf("the container has no port %q", ref)
	return 0
}

// checkPorts: --http's port is the container's port http, the probes',
// the Service's target and the image's CMD and EXPOSE; --metrics-addr's is
// the port metrics and the one Prometheus is told to scrape.
func checkPorts(t *testing.T, m *manifests, c *container, cf *containerfile) {
	httpAddr, ok := flagValue(c.Args, "http")
	require.True(t, ok, "the Deployment passes --http")
	httpPort := port(t, httpAddr)
	require.Equal(t, httpPort, containerPort(t, c, "http"))
	require.Equal(t, httpPort, containerPort(t, c, c.ReadinessProbe.HTTPGet.Port), "readiness probe port")
	require.Equal(t, httpPort, containerPort(t, c, c.LivenessProbe.HTTPGet.Port), "liveness probe port")
	require.Len(t, m.service.Spec.Ports, 1)
	require.Equal(t, httpPort, containerPort(t, c, m.service.Spec.Ports[0].TargetPort), "the Service's targetPort")

	cmdAddr, ok := flagValue(cf.cmd, "http")
	require.True(t, ok, "the image's CMD passes --http")
	require.Equal(t, httpPort, port(t, cmdAddr), "the image's CMD and the Deployment serve on one port")
	require.Contains(t, cf.expose, httpPort, "the image EXPOSEs it")

	metricsAddr, ok := flagValue(c.Args, "metrics-addr")
	require.True(t, ok, "the Deployment passes --metrics-addr")
	metricsPort := port(t, metricsAddr)
	require.NotEqual(t, httpPort, metricsPort)
	require.Equal(t, metricsPort, containerPort(t, c, "metrics"))
	ann := m.deployment.Spec.Template.Metadata.Annotations
	require.Equal(t, "true", ann["prometheus.io/scrape"])
	require.Equal(t, strconv.Itoa(metricsPort), ann["prometheus.io/port"])
	require.Equal(t, "/metrics", ann["prometheus.io/path"])
}

// checkProbes: readiness on /readyz (which fails while draining),
// liveness on /healthz; TestManifestsServe asks the server for both.
func checkProbes(t *testing.T, _ *manifests, c *container, _ *containerfile) {
	require.NotNil(t, c.ReadinessProbe)
	require.NotNil(t, c.LivenessProbe)
	require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
}

// checkGrace: Kubernetes waits for the preStop sleep, the shutdown grace
// and the server's own waits after it before it kills the container; the
// grace lets a run started just before SIGTERM end within its wall time.
func checkGrace(t *testing.T, m *manifests, c *container, _ *containerfile) {
	grace := durationFlag(t, c.Args, "shutdown-grace")
	wall := durationFlag(t, c.Args, "wall-time")
	require.GreaterOrEqual(t, grace, wall, "--shutdown-grace lets a run in flight end within --wall-time")
	need := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds+shutdownWaits)*time.Second + grace
	got := time.Duration(m.deployment.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
	require.Greater(t, got, need, "terminationGracePeriodSeconds > preStop sleep + --shutdown-grace + the server's waits")
}

// durationFlag returns the value of --name in args, which must be there.
func durationFlag(t *testing.T, args []string, name string) time.Duration {
	t.Helper()
	v, ok := flagValue(args, name)
	require.True(t, ok, "the Deployment passes --%s explicitly", name)
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "--%s", name)
	return d
}

// memoryComment is the arithmetic deployment.yaml's comment on resources
// states: --memory × --max-runs + overhead = limit.
var memoryComment = regexp.MustCompile(`#\s*= (\d+Mi) × (\d+) \+ (\d+Mi) = (\d+Mi)\.`)

// checkMemory: the memory limit holds --max-runs runs of --memory each
// plus the overhead, and the comment's arithmetic is the one in force.
func checkMemory(t *testing.T, m *manifests, c *container, _ *containerfile) {
	memFlag, ok := flagValue(c.Args, "memory")
	require.True(t, ok, "the Deployment passes --memory explicitly")
	perRun, err := parseSize(memFlag)
	require.NoError(t, err)
	runsFlag, ok := flagValue(c.Args, "max-runs")
	require.True(t, ok, "the Deployment passes --max-runs explicitly")
	runs, err := strconv.ParseInt(runsFlag, 10, 64)
	require.NoError(t, err)
	limit, err := parseSize(c.Resources.Limits["memory"])
	require.NoError(t, err)
	request, err := parseSize(c.Resources.Requests["memory"])
	require.NoError(t, err)
	require.GreaterOrEqual(t, limit, perRun*runs+serverOverhead, "limits.memory ≥ --memory × --max-runs + overhead")
	require.Equal(t, limit, request, "memory is requested as limited, so that a node never overcommits it")

	sum := memoryComment.FindStringSubmatch(m.deploymentText)
	require.NotNil(t, sum, "deployment.yaml states the memory arithmetic as `= NMi × N + NMi = NMi.`")
	for i, want := range []int64{perRun, runs, serverOverhead, limit} {
		got, err := parseSize(sum[i+1])
		require.NoError(t, err)
		require.Equal(t, want, got, "term %d of the comment's arithmetic %q", i+1, sum[0])
	}
}

// checkSecret: --token-file is the file the Secret's volume holds, and the
// Secret's key is one the kustomization generates.
func checkSecret(t *testing.T, m *manifests, c *container, _ *containerfile) {
	file, ok := flagValue(c.Args, "token-file")
	require.True(t, ok, "the Deployment passes --token-file")
	var vol *volume
	for _, vm := range c.VolumeMounts {
		if path.Dir(file) == vm.MountPath {
			i := slices.IndexFunc(m.deployment.Spec.Template.Spec.Volumes, func(v volume) bool { return v.Name == vm.Name })
			require.True(t, i >= 0, "volume %s is declared", vm.Name)
			vol = &m.deployment.Spec.Template.Spec.Volumes[i]
		}
	}
	require.NotNil(t, vol, "a volume is mounted at %s", path.Dir(file))
	require.NotNil(t, vol.Secret, "volume %s is a Secret", vol.Name)
	i := slices.IndexFunc(vol.Secret.Items, func(it keyToPath) bool { return it.Path == path.Base(file) })
	require.True(t, i >= 0, "the Secret volume has the item %s", path.Base(file))
	key := vol.Secret.Items[i].Key

	var keys []string
	for _, g := range m.kustomization.SecretGenerator {
		if g.Name != vol.Secret.SecretName {
			continue
		}
		for _, f := range g.Files {
			k, _, hasKey := strings.Cut(f, "=")
			if !hasKey {
				k = path.Base(f)
			}
			keys = append(keys, k)
		}
		for _, l := range g.Literals {
			k, _, _ := strings.Cut(l, "=")
			keys = append(keys, k)
		}
	}
	require.Contains(t, keys, key, "the kustomization generates Secret %s with key %s", vol.Secret.SecretName, key)
	for _, e := range c.Env {
		require.NotEqual(t, "CODERUN_TOKEN", e.Name, "the token is a file, not inherited by upstreams")
	}
}

// checkSelectors: the Deployment selects its pods, and the Service, the
// PodDisruptionBudget and the HorizontalPodAutoscaler target them.
func checkSelectors(t *testing.T, m *manifests, c *container, _ *containerfile) {
	d := m.deployment
	sel := d.Spec.Selector.MatchLabels
	require.NotEmpty(t, sel)
	selects := func(labels map[string]string) bool {
		for k, v := range sel {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
	require.True(t, selects(d.Spec.Template.Metadata.Labels), "the Deployment's selector matches its pods")
	require.Equal(t, sel, m.service.Spec.Selector, "the Service selects the Deployment's pods")
	require.Equal(t, sel, m.pdb.Spec.Selector.MatchLabels, "the PodDisruptionBudget selects the Deployment's pods")
	require.True(t, (m.pdb.Spec.MaxUnavailable == nil) != (m.pdb.Spec.MinAvailable == nil), "the PodDisruptionBudget sets one bound")
	ref := m.hpa.Spec.ScaleTargetRef
	require.Equal(t, "autoscaling/v2", m.hpa.APIVersion)
	require.Equal(t, [3]string{"apps/v1", "Deployment", d.Metadata.Name}, [3]string{ref.APIVersion, ref.Kind, ref.Name})
	require.Len(t, m.hpa.Spec.Metrics, 1)
	require.Equal(t, "cpu", m.hpa.Spec.Metrics[0].Resource.Name)
	require.Contains(t, c.Resources.Requests, "cpu", "CPU utilization is relative to the request")
	if m.pdb.Spec.MaxUnavailable != nil {
		require.Less(t, *m.pdb.Spec.MaxUnavailable, m.hpa.Spec.MinReplicas, "a disruption leaves a replica serving")
	}
}

// checkSecurity: the pod runs as the image's user, never root, with a
// read-only root file system, no privilege and a writable /tmp for HOME.
func checkSecurity(t *testing.T, m *manifests, c *container, cf *containerfile) {
	psc := m.deployment.Spec.Template.Spec.SecurityContext
	require.NotNil(t, psc.RunAsNonRoot)
	require.True(t, *psc.RunAsNonRoot)
	require.NotNil(t, psc.RunAsUser)
	require.NotNil(t, psc.RunAsGroup)
	require.Equal(t, cf.user, fmt.Sprintf("%d:%d", *psc.RunAsUser, *psc.RunAsGroup), "the pod runs as the image's USER")
	sc := c.SecurityContext
	require.NotNil(t, sc.ReadOnlyRootFilesystem)
	require.True(t, *sc.ReadOnlyRootFilesystem)
	require.NotNil(t, sc.AllowPrivilegeEscalation)
	require.False(t, *sc.AllowPrivilegeEscalation)
	require.Equal(t, []string{"ALL"}, sc.Capabilities.Drop)

	require.NotEmpty(t, cf.home)
	i := slices.IndexFunc(c.VolumeMounts, func(vm volumeMount) bool { return vm.MountPath == cf.home })
	require.True(t, i >= 0, "HOME (%s) is mounted writable", cf.home)
	j := slices.IndexFunc(m.deployment.Spec.Template.Spec.Volumes, func(v volume) bool { return v.Name == c.VolumeMounts[i].Name })
	require.True(t, j >= 0)
	require.NotNil(t, m.deployment.Spec.Template.Spec.Volumes[j].EmptyDir, "HOME is an emptyDir")
}
