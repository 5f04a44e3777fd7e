package deploy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// imageTestEnv set to 0 opts out of TestImage, which builds the image
// wherever podman is: about 50 s with a cold Go build cache (build-image.sh
// builds with other flags than the tests), 10 s with a warm one.
const imageTestEnv = "CODERUN_IMAGE_TEST"

// build-image.sh builds an image whose configuration is the Containerfile's
// (user, entrypoint, command, HOME) and whose files are only these: a
// static coderun at /coderun, the CA bundle, and the engine's compiled code
// under /var/cache/coderun/wazero, owned by the image's user.
func TestImage(t *testing.T) {
	podman, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman is not on PATH: the image is not built (apt-get install podman)")
	}
	if testing.Short() || os.Getenv(imageTestEnv) == "0" {
		t.Skipf("builds the image (about 50 s with a cold Go build cache): not with -short or %s=0", imageTestEnv)
	}
	cf := loadContainerfile(t)
	tag := fmt.Sprintf("localhost/coderun-deploy-test:%d-%d", os.Getpid(), time.Now().UnixNano())
	start := time.Now()
	build := exec.Command("bash", "build-image.sh", tag)
	out, err := build.CombinedOutput()
	t.Cleanup(func() { _ = exec.Command(podman, "rmi", "--force", tag).Run() })
	require.NoError(t, err, "build-image.sh:\n%s", out)
	t.Logf("build-image.sh took %v", time.Since(start).Round(time.Millisecond))

	out, err = exec.Command(podman, "image", "inspect", tag).Output()
	require.NoError(t, err)
	var inspect []struct {
		Config struct {
			User       string   `json:"User"`
			Entrypoint []string `json:"Entrypoint"`
			Cmd        []string `json:"Cmd"`
			Env        []string `json:"Env"`
		} `json:"Config"`
	}
	require.NoError(t, json.Unmarshal(out, &inspect))
	require.Len(t, inspect, 1)
	cfg := inspect[0].Config
	require.Equal(t, cf.user, cfg.User)
	require.Equal(t, "65532:65532", cfg.User, "a non-root user")
	require.Equal(t, cf.entrypoint, cfg.Entrypoint)
	require.Equal(t, cf.cmd, cfg.Cmd)
	require.Contains(t, cfg.Env, "HOME="+cf.home)

	archive := filepath.Join(t.TempDir(), "image.tar")
	out, err = exec.Command(podman, "save", "--format", "docker-archive", "--output", archive, tag).CombinedOutput()
	require.NoError(t, err, "podman save:\n%s", out)
	files := imageFiles(t, archive)
	checkImageFiles(t, files)
	t.Logf("build, inspect and save took %v", time.Since(start).Round(time.Millisecond))
}

// imageFile is one entry of an image's layers.
type imageFile struct {
	hdr  *tar.Header
	data []byte // the content of /coderun and the CA bundle
}

// imageFiles returns the entries of every layer of the docker-archive at
// archive, by absolute path (a later layer's entry replaces an earlier
// one's).
func imageFiles(t *testing.T, archive string) map[string]imageFile {
	t.Helper()
	layers := map[string][]byte{}
	var manifest []struct{ Layers []string }
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	outer := tar.NewReader(f)
	for {
		hdr, err := outer.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(outer)
		require.NoError(t, err)
		if hdr.Name == "manifest.json" {
			require.NoError(t, json.Unmarshal(b, &manifest))
		} else {
			layers[hdr.Name] = b
		}
	}
	require.Len(t, manifest, 1, "one image in the archive")
	files := map[string]imageFile{}
	for _, name := range manifest[0].Layers {
		layer, ok := layers[name]
		require.True(t, ok, "layer %s is in the archive", name)
		var r io.Reader = bytes.NewReader(layer)
		if bytes.HasPrefix(layer, []byte{0x1f, 0x8b}) {
			r, err = gzip.NewReader(r)
			require.NoError(t, err)
		}
		tr := tar.NewReader(r)
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			p := path.Clean("/" + hdr.Name)
			entry := imageFile{hdr: hdr}
			if p == "/coderun" || p == "/etc/ssl/certs/ca-certificates.crt" {
				entry.data, err = io.ReadAll(tr)
				require.NoError(t, err)
			}
			files[p] = entry
		}
	}
	return files
}

// checkImageFiles checks what the image holds (see TestImage).
func checkImageFiles(t *testing.T, files map[string]imageFile) {
	t.Helper()
	bin, ok := files["/coderun"]
	require.True(t, ok, "/coderun is in the image")
	require.Equal(t, byte(tar.TypeReg), bin.hdr.Typeflag)
	require.NotZero(t, bin.hdr.Mode&0o111, "/coderun is executable")
	exe, err := elf.NewFile(bytes.NewReader(bin.data))
	require.NoError(t, err, "/coderun is an ELF executable")
	for _, p := range exe.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "/coderun is static: it names no dynamic loader")
		require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "/coderun is static: it has no dynamic section")
	}

	ca, ok := files["/etc/ssl/certs/ca-certificates.crt"]
	require.True(t, ok, "the CA bundle is in the image")
	require.Contains(t, string(ca.data), "-----BEGIN CERTIFICATE-----")

	var cached int64
	for p, f := range files {
		switch {
		case p == "/coderun" || p == "/etc" || strings.HasPrefix(p, "/etc/ssl"):
		case p == "/" || p == "/var" || p == "/var/cache":
		case p == "/var/cache/coderun" || strings.HasPrefix(p, "/var/cache/coderun/"):
			require.Equal(t, [2]int{65532, 65532}, [2]int{f.hdr.Uid, f.hdr.Gid}, "%s is the image user's", p)
			if strings.HasPrefix(p, "/var/cache/coderun/wazero/") && f.hdr.Typeflag == tar.TypeReg {
				cached += f.hdr.Size
			}
		default:
			t.Errorf("%s is in the image: only /coderun, /etc/ssl/certs and /var/cache/coderun belong there", p)
		}
	}
	require.Greater(t, cached, int64(1<<20), "the engine's compiled code is under /var/cache/coderun/wazero")
}
