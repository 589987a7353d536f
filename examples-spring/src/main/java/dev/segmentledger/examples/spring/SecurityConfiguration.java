package dev.segmentledger.examples.spring;

import static org.springframework.security.config.Customizer.withDefaults;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The example's security: the recorder's segment API and the actuator stay open as before (put
 * them behind your own rules in production), everything else, the ledger's console included, needs
 * a signed-in user (form login or HTTP Basic). The console itself also requires the role {@code
 * segment-ledger.console.role}; the example's one user ({@code spring.security.user.*}) has it.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {
  @Bean
  SecurityFilterChain recorderSecurity(HttpSecurity http) throws Exception {
    return http
        .authorizeHttpRequests(requests -> requests
            .requestMatchers("/segments/**", "/actuator/**", "/error").permitAll()
            .anyRequest().authenticated())
        .csrf(csrf -> csrf.ignoringRequestMatchers("/segments/**", "/actuator/**"))
        .formLogin(withDefaults())
        .httpBasic(withDefaults())
        .build();
  }
}
