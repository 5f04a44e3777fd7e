package deploy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The parts of the manifests in kubernetes/ that the tests check, as
// Kubernetes spells them.
type (
	meta struct {
		Name        string            `yaml:"name"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	}
	labelSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	deployment struct {
		Kind     string `yaml:"kind"`
		Metadata meta   `yaml:"metadata"`
		Spec     struct {
			Selector labelSelector `yaml:"selector"`
			Template struct {
				Metadata meta    `yaml:"metadata"`
				Spec     podSpec `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	podSpec struct {
		TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
		SecurityContext               struct {
			RunAsNonRoot *bool `yaml:"runAsNonRoot"`
			RunAsUser    *int  `yaml:"runAsUser"`
			RunAsGroup   *int  `yaml:"runAsGroup"`
		} `yaml:"securityContext"`
		Containers []container `yaml:"containers"`
		Volumes    []volume    `yaml:"volumes"`
	}
	container struct {
		Name  string   `yaml:"name"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Env   []struct {
			Name string `yaml:"name"`
		} `yaml:"env"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		Lifecycle      struct {
			PreStop struct {
				Sleep struct {
					Seconds int `yaml:"seconds"`
				} `yaml:"sleep"`
			} `yaml:"preStop"`
		} `yaml:"lifecycle"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []volumeMount `yaml:"volumeMounts"`
	}
	volumeMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	probe struct {
		HTTPGet struct {
			Path string  `yaml:"path"`
			Port portRef `yaml:"port"`
		} `yaml:"httpGet"`
	}
	volume struct {
		Name     string    `yaml:"name"`
		EmptyDir *struct{} `yaml:"emptyDir"`
		Secret   *struct {
			SecretName string      `yaml:"secretName"`
			Items      []keyToPath `yaml:"items"`
		} `yaml:"secret"`
	}
	keyToPath struct {
		Key  string `yaml:"key"`
		Path string `yaml:"path"`
	}
	service struct {
		Kind     string `yaml:"kind"`
		Metadata meta   `yaml:"metadata"`
		Spec     struct {
			Selector map[string]string `yaml:"selector"`
			Ports    []struct {
				Name       string  `yaml:"name"`
				Port       int     `yaml:"port"`
				TargetPort portRef `yaml:"targetPort"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	hpa struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			ScaleTargetRef struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Name       string `yaml:"name"`
			} `yaml:"scaleTargetRef"`
			MinReplicas int `yaml:"minReplicas"`
			MaxReplicas int `yaml:"maxReplicas"`
			Metrics     []struct {
				Type     string `yaml:"type"`
				Resource struct {
					Name string `yaml:"name"`
				} `yaml:"resource"`
			} `yaml:"metrics"`
		} `yaml:"spec"`
	}
	pdb struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Selector       labelSelector `yaml:"selector"`
			MaxUnavailable *int          `yaml:"maxUnavailable"`
			MinAvailable   *int          `yaml:"minAvailable"`
		} `yaml:"spec"`
	}
	kustomization struct {
		Resources       []string `yaml:"resources"`
		SecretGenerator []struct {
			Name     string   `yaml:"name"`
			Files    []string `yaml:"files"`
			Literals []string `yaml:"literals"`
		} `yaml:"secretGenerator"`
	}
)

// portRef is a port given by number or by name (IntOrString).
type portRef string

// UnmarshalYAML implements yaml.Unmarshaler.
func (p *portRef) UnmarshalYAML(n *yaml.Node) error {
	*p = portRef(n.Value)
	return nil
}

// manifests are the files of kubernetes/, parsed.
type manifests struct {
	deployment    deployment
	service       service
	hpa           hpa
	pdb           pdb
	kustomization kustomization
	// deploymentText is deployment.yaml's text, for its comments.
	deploymentText string
}

// loadManifests parses the files of kubernetes/, each into its kind.
func loadManifests(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{}
	for name, into := range map[string]any{
		"deployment.yaml": &m.deployment, "service.yaml": &m.service, "hpa.yaml": &m.hpa,
		"pdb.yaml": &m.pdb, "kustomization.yaml": &m.kustomization,
	} {
		text, err := os.ReadFile(filepath.Join("kubernetes", name))
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(text, into), name)
		if name == "deployment.yaml" {
			m.deploymentText = string(text)
		}
	}
	return m
}

// server is the Deployment's only container.
func (m *manifests) server(t *testing.T) *container {
	t.Helper()
	require.Len(t, m.deployment.Spec.Template.Spec.Containers, 1)
	return &m.deployment.Spec.Template.Spec.Containers[0]
}

// containerfile is what the tests check of Containerfile.
type containerfile struct {
	entrypoint, cmd []string
	user, home      string
	expose          []int
}

// loadContainerfile reads Containerfile's ENTRYPOINT and CMD (exec form),
// USER, ENV HOME and EXPOSE.
func loadContainerfile(t *testing.T) *containerfile {
	t.Helper()
	f, err := os.Open("Containerfile")
	require.NoError(t, err)
	defer f.Close()
	c := &containerfile{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		word, rest, _ := strings.Cut(strings.TrimSpace(lines.Text()), " ")
		switch word {
		case "ENTRYPOINT":
			require.NoError(t, json.Unmarshal([]byte(rest), &c.entrypoint), "ENTRYPOINT in exec form")
		case "CMD":
			require.NoError(t, json.Unmarshal([]byte(rest), &c.cmd), "CMD in exec form")
		case "USER":
			c.user = rest
		case "ENV":
			if v, ok := strings.CutPrefix(rest, "HOME="); ok {
				c.home = v
			}
		case "EXPOSE":
			for p := range strings.FieldsSeq(rest) {
				n, err := strconv.Atoi(p)
				require.NoError(t, err, "EXPOSE %s", rest)
				c.expose = append(c.expose, n)
			}
		}
	}
	require.NoError(t, lines.Err())
	require.NotEmpty(t, c.entrypoint, "Containerfile has an ENTRYPOINT")
	return c
}

// flagValue returns the value of the flag name in args (--name VALUE or
// --name=VALUE, with one or two dashes), and whether it is there.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		n, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || n != name {
			continue
		}
		if hasValue {
			return v, true
		}
		if i+1 < len(args) {
			return args[i+1], true
		}
		return "", true
	}
	return "", false
}

// flagNames returns the names of the flags in args: the words that start
// with a dash.
func flagNames(args []string) []string {
	var names []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			names = append(names, n)
		}
	}
	return names
}

// sizeUnits are the units of coderun's SIZE flags and of Kubernetes'
// binary quantities.
var sizeUnits = map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}

var sizeText = regexp.MustCompile(`^(\d+)\s*([A-Za-z]*)$`)

// parseSize parses a size such as 256MiB (a coderun flag) or 1280Mi (a
// Kubernetes quantity) into bytes.
func parseSize(s string) (int64, error) {
	m := sizeText.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	unit, ok := sizeUnits[m[2]]
	if !ok {
		return 0, fmt.Errorf("%q: unit %q is not one of B, KiB, MiB, GiB, Ki, Mi, Gi", s, m[2])
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n * unit, err
}

// port returns the port of a host:port address.
func port(t *testing.T, addr string) int {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	require.Positive(t, i, "%q is host:port", addr)
	n, err := strconv.Atoi(addr[i+1:])
	require.NoError(t, err, "%q is host:port", addr)
	return n
}
