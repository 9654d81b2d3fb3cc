package register

// The Windows installer (install/release's MSI) takes the Munim path as its
// MUNIM property. A custom action's command line is the property pasted in
// as it is, which no quoting makes safe: a path ending in a backslash or a
// value holding a quote would end the argument and add others of its own
// (another --extension-id). So the MSI writes the property, as it is, to a
// registry value of its own key, and its custom action runs
// `gnosis-host install --munim-from-msi`, which reads it there: the value
// never passes through a command line.
const (
	// MSIKey is the MSI's key under HKCU; uninstalling removes its values.
	MSIKey = `Software\Gnosis`
	// MSIMunimValue is the value of MSIKey holding the MUNIM property.
	MSIMunimValue = "Munim"
)
