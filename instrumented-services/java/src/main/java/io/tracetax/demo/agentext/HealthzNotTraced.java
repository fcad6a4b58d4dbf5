package io.tracetax.demo.agentext;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.util.List;

/**
 * OpenTelemetry Java agent extension (agent mode only, loaded with
 * {@code -Dotel.javaagent.extensions=target/tracetax-demo-java-agent-ext.jar}).
 *
 * <p>The agent's java-http-server instrumentation traces every HttpServer context, and the agent
 * has no setting to exclude a URL. This wraps whatever sampler the agent configured from
 * OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG and drops only SERVER spans whose url.path is
 * /healthz (the instrumentation sets url.path before sampling), so /healthz is never traced.
 */
public final class HealthzNotTraced implements AutoConfigurationCustomizerProvider {

  @Override
  public void customize(AutoConfigurationCustomizer customizer) {
    customizer.addSamplerCustomizer((configured, config) -> new DropHealthz(configured));
  }

  static final class DropHealthz implements Sampler {
    private static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    private final Sampler delegate;

    DropHealthz(Sampler delegate) {
      this.delegate = delegate;
    }

    @Override
    public SamplingResult shouldSample(Context parentContext, String traceId, String name,
        SpanKind spanKind, Attributes attributes, List<LinkData> parentLinks) {
      if (spanKind == SpanKind.SERVER && "/healthz".equals(attributes.get(URL_PATH))) {
        return SamplingResult.drop();
      }
      return delegate.shouldSample(parentContext, traceId, name, spanKind, attributes,
          parentLinks);
    }

    @Override
    public String getDescription() {
      return "DropHealthz{" + delegate.getDescription() + "}";
    }
  }
}
