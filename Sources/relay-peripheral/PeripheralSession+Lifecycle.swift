import RelayApp

/// The adapter and the two registrations (application, advertisement).
extension PeripheralSession {
    mutating func adapterChanged(to state: AdapterState, info: AdapterInfo?) -> [PeripheralAction] {
        guard state != adapter || info != adapterInfo else { return [] }
        let wasOn = isPoweredOn
        let wasAdvertising = isAdvertising
        setAdapter(state, info: info)
        var actions: [PeripheralAction] = [.report(.state(state, adapter: info))]
        if state == .poweredOn {
            registrations.poweredOn()
            return actions + reconcile()
        }
        // Paused: advertising stops, links are gone, queued notifications cannot be delivered.
        let lostBlueZ = state != .poweredOff
        if registrations.paused(lostBlueZ: lostBlueZ) {
            if !lostBlueZ { actions.append(.unregisterAdvertisement) }
            if wasOn, wasAdvertising { actions.append(.report(.stopped(lostBlueZ ? .unavailable : .poweredOff))) }
        }
        for address in centrals.keys.sorted() {
            actions += disconnect(address, reason: "Bluetooth \(state.phrase)")
        }
        subscriptions.notifyStopped()
        // Protocol-2 sessions wait for their centrals' next hello (a resume).
        subscriptions.sessionNotifyStopped()
        sending.dropSessionCounters()
        // (Every central was reported disconnected above; no unsubscribed lines on top.)
        _ = sessionNotifyStopped()
        actions += abandonOutbox(because: .bluetooth(state))
        return actions
    }

    mutating func applicationRegistered(_ ticket: RegistrationTicket) -> [PeripheralAction] {
        guard registrations.applicationRegistered(ticket) else { return [] }
        var actions: [PeripheralAction] = [.report(.registered)]
        // The advertisement's reply came first: advertising starts now.
        if isAdvertising { actions.append(.report(.advertising(name: settings.name.text))) }
        return actions + reconcile()
    }

    mutating func applicationFailed(_ ticket: RegistrationTicket, _ failure: RegistrationFailure) -> [PeripheralAction]
    {
        guard registrations.awaitsApplication(ticket) else { return [] }
        // Refused by the bus policy: that is the adapter's state (it says why and the fix).
        if failure.isAccessDenied { return adapterChanged(to: .unavailable(.accessDenied), info: adapterInfo) }
        let withdraw = registrations.applicationFailed()
        return (withdraw ? [.unregisterAdvertisement] : []) + [.report(.error(.registration(failure), from: nil))]
    }

    mutating func advertisementRegistered(_ ticket: RegistrationTicket) -> [PeripheralAction] {
        answered(registrations.advertisementRegistered(ticket, poweredOn: isPoweredOn), failure: nil)
    }

    mutating func advertisementFailed(
        _ ticket: RegistrationTicket, _ failure: RegistrationFailure
    ) -> [PeripheralAction] {
        answered(registrations.advertisementFailed(ticket, centrals: centrals.count), failure: failure)
    }

    /// What an advertisement's answer calls for, as actions and reports.
    private mutating func answered(
        _ answer: PeripheralRegistrations.AdvertisementAnswer, failure: RegistrationFailure?
    ) -> [PeripheralAction] {
        switch answer {
        case .none: return []
        // Reported once the service is registered too (`applicationRegistered`).
        case .active: return isAdvertising ? [.report(.advertising(name: settings.name.text))] : []
        case .withdraw: return [.unregisterAdvertisement]
        case .reconcile: return reconcile()
        case .held(let count): return [.report(.advertisingHeld(centrals: count))]
        case .failed: return failure.map { [.report(.error(.registration($0), from: nil))] } ?? []
        }
    }

    /// A central connected: a controller stops advertising at a connection. Linux starts legacy
    /// advertising again by itself (within about 2 s), but extended advertising stays off until a
    /// link ends (`hci_le_ext_adv_term_evt`), so on an adapter that advertises extended the
    /// advertisement is registered again at once, and the rest of the room can join. One that
    /// cannot advertise while connected refuses it: that is said once (`advertisingHeld`), and
    /// advertising is asked for again whenever a central leaves. Not on a legacy adapter: there
    /// Linux restarts advertising for the instance a connection came through, and one registered
    /// anew under another number leaves it restarting an instance that is gone.
    mutating func advertiseAgainAfterConnection() -> [PeripheralAction] {
        guard
            let ticket = registrations.renew(
                extendedAdvertising: adapterInfo?.extendedAdvertising == true, poweredOn: isPoweredOn)
        else { return [] }
        return [.renewAdvertisement(ticket, name: settings.name, interval: settings.advertisingInterval)]
    }

    /// A central left: advertising held for the connected centrals is asked for again.
    mutating func advertiseAgainAfterDisconnection() -> [PeripheralAction] {
        registrations.isHeld ? reconcile() : []
    }

    mutating func advertisementReleased() -> [PeripheralAction] {
        let wasAdvertising = isAdvertising
        guard registrations.released(poweredOn: isPoweredOn), wasAdvertising else { return [] }
        return [.report(.stopped(isPoweredOn ? .released : .poweredOff))]
    }

    /// Issues the registrations the wishes and the state call for (`PeripheralRegistrations.reconcile`);
    /// `advertising` is reported once both are registered.
    mutating func reconcile() -> [PeripheralAction] {
        guard isPoweredOn else { return [] }
        let wasAdvertising = isAdvertising
        let requests = registrations.reconcile()
        var actions: [PeripheralAction] = []
        if let ticket = requests.application { actions.append(.registerApplication(ticket)) }
        if let ticket = requests.advertisement {
            actions.append(.registerAdvertisement(ticket, name: settings.name, interval: settings.advertisingInterval))
        }
        if requests.withdrawAdvertisement {
            actions.append(.unregisterAdvertisement)
            if wasAdvertising { actions.append(.report(.stopped(.command))) }
        }
        return actions
    }
}
