// jsdom lacks matchMedia, which uPlot calls when it is imported (for the device pixel ratio).
if (typeof window !== "undefined" && !window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// jsdom's scrollTo only reports "not implemented"; the router's scroll restoration calls it.
if (typeof window !== "undefined") window.scrollTo = () => {};

// jsdom has no scrollIntoView; the error summary's links call it.
if (typeof Element !== "undefined" && !Element.prototype.scrollIntoView) {
  Element.prototype.scrollIntoView = () => {};
}
