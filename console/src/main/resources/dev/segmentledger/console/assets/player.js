// Plays the broadcast's multivariant playlist (the video's data-src, served through the console's
// host) with hls.js, or with the browser's own HLS support; reports how far it got in
// window.__console.player and in #player-status.
(function () {
  'use strict';
  var video = document.getElementById('player');
  var status = document.getElementById('player-status');
  if (!video) { return; }
  var state = { position: 0, fatal: [], engine: null };
  window.__console = { player: state };
  function show(text) { if (status) { status.textContent = text; } }
  video.addEventListener('timeupdate', function () {
    state.position = video.currentTime;
    show('playing ' + video.currentTime.toFixed(1) + ' s');
  });
  video.addEventListener('error', function () { state.fatal.push('media error'); show('media error'); });
  var src = video.getAttribute('data-src');
  if (window.Hls && window.Hls.isSupported()) {
    state.engine = 'hls.js ' + window.Hls.version;
    var hls = new window.Hls();
    hls.on(window.Hls.Events.ERROR, function (event, data) {
      if (data.fatal) { state.fatal.push(data.type + ': ' + data.details); show('error: ' + data.details); }
    });
    hls.loadSource(src);
    hls.attachMedia(video);
  } else if (video.canPlayType('application/vnd.apple.mpegurl')) {
    state.engine = 'native';
    video.src = src;
  } else {
    state.fatal.push('no HLS support: hls.js not loaded');
    show('cannot play: hls.js is not available to this page');
    return;
  }
  var started = video.play();
  if (started && started.catch) {
    started.catch(function (e) { show('press play (' + e.name + ')'); });
  }
})();
