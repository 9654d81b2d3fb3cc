package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every file of a release, named by the one scheme the extension reads.
func TestFileNamesCarryTheVersionPlatformAndKind(t *testing.T) {
	var got []string
	for _, target := range Targets {
		goos, goarch, _ := strings.Cut(target, "/")
		for _, kind := range hostKinds(goos, goarch) {
			got = append(got, hostFile("1.2.3", goos, goarch, kind))
		}
	}
	got = append(got, chromeFile("1.2.3"), chromeStoreFile("1.2.3"), firefoxFile("1.2.3"))
	want := []string{
		"gnosis-1.2.3-windows-amd64.msi", "gnosis-1.2.3-windows-amd64.zip", "gnosis-1.2.3-windows-arm64.zip",
		"gnosis-1.2.3-darwin-amd64.zip", "gnosis-1.2.3-darwin-arm64.zip",
		"gnosis-1.2.3-linux-amd64.deb", "gnosis-1.2.3-linux-amd64.rpm", "gnosis-1.2.3-linux-amd64.zip",
		"gnosis-1.2.3-linux-arm64.deb", "gnosis-1.2.3-linux-arm64.rpm", "gnosis-1.2.3-linux-arm64.zip",
		"gnosis-1.2.3-chrome.zip", "gnosis-1.2.3-chrome-store.zip", "gnosis-1.2.3-firefox.xpi",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("file names (-want +got):\n%s", d)
	}
}

// The committed extension/shared/core/release.js is what the release tool
// generates for the default download location.
func TestReleaseJSIsGeneratedFromTheScheme(t *testing.T) {
	got := string(mustRead(t, "../../extension/"+ReleaseJS))
	if d := cmp.Diff(string(releaseJS(DefaultDownloadURL, Targets)), got); d != "" {
		t.Errorf("extension/%s is stale; run: go run ./install/release -write-release-js (-generated +committed):\n%s", ReleaseJS, d)
	}
	for _, want := range []string{
		`export const DOWNLOAD_URL = 'https://github.com/gnosis/gnosis/releases/download/v{version}/';`,
		`'windows/amd64': ['gnosis-{version}-windows-amd64.msi', 'gnosis-{version}-windows-amd64.zip'],`,
		`'linux/arm64': ['gnosis-{version}-linux-arm64.deb', 'gnosis-{version}-linux-arm64.rpm', 'gnosis-{version}-linux-arm64.zip'],`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("release.js lacks %s", want)
		}
	}
}

func TestDownloadURLMustBeAFolderURL(t *testing.T) {
	for u, ok := range map[string]bool{
		DefaultDownloadURL: true, "https://mirror.example/gnosis/": true, "http://mirror.internal/r/{version}/": true,
		"https://mirror.example/gnosis": false, "ftp://x/": false, "/local/": false, "": false,
	} {
		if err := checkDownloadURL(u); (err == nil) != ok {
			t.Errorf("checkDownloadURL(%q) = %v, want ok %v", u, err, ok)
		}
	}
	// A quote in a URL stays inside the JavaScript string.
	if got := jsString(`https://x/it's/`); got != `'https://x/it\'s/'` {
		t.Errorf("jsString: %s", got)
	}
}
